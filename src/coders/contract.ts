import type { CoderStatus } from "../artifacts/schemas/index.js";
import { DevflowError, type ErrorCode, isDevflowError } from "../errors/index.js";
import type { MountPlan } from "../process/mount-namespace.js";
import type { CoderActivity } from "./activity.js";

export interface CoderRunRequest {
  /** Full prompt text; backends pass it the way their CLI expects (file, stdin, argument). */
  prompt: string;
  /** The task worktree: the only directory the coder may change. */
  worktree: string;
  /**
   * attempts/attempt-NNN/: devflow's record of the run (transcript, process-group file). Never given
   * to the coder (no env variable, no argument, no prompt text): the coder has no path to devflow's
   * artifacts (ADR 0018).
   */
  attemptDir: string;
  /**
   * A per-run directory outside the task's artifact dir that the coder may read and write: the
   * prompt file and a CLI's per-run config home go here. The caller creates and removes it.
   */
  scratchDir: string;
  /** Extra environment on top of the runner's allowlist (API keys the backend needs, ...). */
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  model?: string;
  /**
   * Marker for the run's processes (ProcessRunOptions.runMarker): a backend that spawns a process
   * runs it confined with this marker, so the caller can check afterwards that none survived.
   */
  runMarker?: string;
  /**
   * What the coder may see of the repository where a mount namespace works (ADR 0025): the
   * user's checkout read-only, devflow's home hidden but for `worktree`. A backend that spawns a
   * process passes it to runProcess.
   */
  mounts?: MountPlan;
  /**
   * Called with a short line whenever the coder's event stream says what it is doing (a command,
   * an edit, a message), for the live progress line. Display only: nothing decides from it, and a
   * backend without an event stream may never call it.
   */
  onActivity?: CoderActivity;
}

export interface CoderUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

/** Every status but ok: the run ended without the coder reporting success. */
export type CoderFailureStatus = Exclude<CoderStatus, "ok">;

/**
 * How a coder run ended, discriminated by status. `ok` means the backend's structured output
 * reported success (not merely "exit 0") and carries no error; every other status carries the
 * human-readable cause. `timeout` and `aborted` are decided by the runner (devflow stopped the
 * run); the rest by the backend's interpretation of its output.
 */
export type CoderOutcome =
  | { status: "ok"; error: null }
  | { [S in CoderFailureStatus]: { status: S; error: string } }[CoderFailureStatus];

/** What one coder run left behind, whatever its outcome. */
export interface CoderRunFacts {
  /** The process's exit code; null when it was killed or the backend runs in-process. */
  exitCode: number | null;
  finalMessage: string;
  transcriptPath: string;
  durationMs: number;
  usage: CoderUsage | null;
}

/** Discriminated by status (CoderOutcome): `error` is null exactly when the status is ok. */
export type CoderRunResult = CoderOutcome & CoderRunFacts;

export interface CoderProbe {
  name: string;
  installed: boolean;
  version: string | null;
  /** How to install or configure what is missing; null when nothing is missing. */
  hint: string | null;
  /**
   * For `devflow doctor`, optional so that a backend without them still conforms: whether a
   * credential the backend accepts is visible (null: the backend needs none, e.g. command:<shell>),
   * and where its executable was found.
   */
  authConfigured?: boolean | null;
  binaryPath?: string | null;
}

export interface CoderBackend {
  readonly name: string;
  probe(): Promise<CoderProbe>;
  run(request: CoderRunRequest): Promise<CoderRunResult>;
}

const CODER_UNAVAILABLE_CODES = ["CODER_UNKNOWN", "CODER_NOT_INSTALLED", "CODER_MISCONFIGURED"] as const;
export type CoderUnavailableCode = (typeof CODER_UNAVAILABLE_CODES)[number];
export type CoderUnavailableError = DevflowError<CoderUnavailableCode>;

/**
 * Thrown before any model call when a backend cannot run at all (unknown name, binary missing,
 * misconfigured); `hint` is the one step that fixes it.
 */
export function coderUnavailableError(
  code: CoderUnavailableCode,
  message: string,
  hint: string | null,
): CoderUnavailableError {
  return new DevflowError(code, message, { hint });
}

export function isCoderUnavailable(error: unknown): error is CoderUnavailableError {
  return isDevflowError(error) && (CODER_UNAVAILABLE_CODES as readonly ErrorCode[]).includes(error.code);
}

/** attempts/attempt-NNN/coder.pgid: the running coder's process group (see ProcessRunOptions.groupIdFile). */
export const CODER_GROUP_FILE = "coder.pgid";
