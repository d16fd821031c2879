import type { MountPlan } from "./mount-namespace.js";
import type { OpenTrace } from "./open-trace.js";
/** Options for one child process run by devflow (coders, seam and test commands). */
export interface ProcessRunOptions {
  /** Executable; with `shell: true`, a shell command line. */
  command: string;
  args?: string[];
  shell?: boolean;
  cwd: string;
  /** Full environment for the child: the runner never inherits process.env on its own. */
  env: Record<string, string>;
  /** `undefined`/"closed": stdin is closed at once. A string is written in full and then ended. */
  stdin?: string | "closed";
  timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL for the whole process group. */
  killGraceMs?: number;
  signal?: AbortSignal;
  /** When set, combined stdout+stderr is streamed here, redacted and capped. */
  transcriptPath?: string;
  /**
   * Cap for the transcript (bytes, default 16 MiB) and upper bound of the in-memory output
   * excerpt, which defaults to min(maxOutputBytes, 64 KiB).
   */
  maxOutputBytes?: number;
  /** Cap for the in-memory `output` excerpt when it should differ from the default above. */
  maxExcerptBytes?: number;
  /**
   * Called for every complete stdout line (no length limit, secrets redacted), e.g. to parse
   * JSON event streams. If it throws, it is not called again and runProcess rethrows the error
   * once the child and its group are gone.
   */
  onStdoutLine?: (line: string) => void;
  /**
   * When set, the child's process group id is written here while it runs (removed when the run
   * ends), so a later devflow can stop a coder that a crashed (SIGKILLed) devflow left running.
   */
  groupIdFile?: string;
  /**
   * Confine the run (coders): on Linux it runs as PID 1 of its own PID namespace when `unshare`
   * works for this user (everything it started dies with it), and its environment carries
   * `DEVFLOW_RUN_MARKER=<runMarker>`; after it ends, every process still carrying the marker is
   * killed. What could not be killed is in `survivors`. See containment.ts and ADR 0020.
   */
  confine?: boolean;
  /** The marker of a confined run (default: a fresh one), so the caller can check for it later. */
  runMarker?: string;
  /**
   * For a confined run on Linux where mount namespaces work: the user's checkout read-only,
   * devflow's home hidden but for the run's own checkout (mount-namespace.ts, ADR 0025). Elsewhere
   * ignored (the fingerprint and tamper checks detect instead).
   */
  mounts?: MountPlan;
  /**
   * Record every file the run's processes open (open-trace.ts, ADR 0072): the run goes under
   * strace, outside its namespaces, and the result carries `openTrace`.
   */
  traceOpens?: boolean;
}

export interface ProcessRunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** The spawn itself failed (e.g. ENOENT): the command does not exist. */
  spawnError: string | null;
  /** Redacted head+tail excerpt of combined output (see maxExcerptBytes). */
  output: string;
  outputTruncated: boolean;
  totalOutputBytes: number;
  durationMs: number;
  /** Pids of processes of a confined run still alive after devflow tried to end them (normally empty). */
  survivors: number[];
  /** Whether the run had its own PID namespace. */
  pidNamespace: boolean;
  /** With `traceOpens`: the files the run opened, or why that is not known. */
  openTrace?: OpenTrace;
}
