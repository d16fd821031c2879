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
  /** Cap for the transcript and for the in-memory output excerpt (bytes). */
  maxOutputBytes?: number;
  /** Called for every complete stdout line (no length limit), e.g. to parse JSON event streams. */
  onStdoutLine?: (line: string) => void;
}

export interface ProcessRunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** The spawn itself failed (e.g. ENOENT): the command does not exist. */
  spawnError: string | null;
  /** Redacted head+tail excerpt of combined output, at most maxOutputBytes. */
  output: string;
  outputTruncated: boolean;
  totalOutputBytes: number;
  durationMs: number;
}
