/**
 * Every way devflow fails, by a stable code, and the category that decides what the user does
 * about it (and so the CLI's exit code, see src/cli/report-error.ts). One table, so a new code
 * cannot be thrown without saying which kind of failure it is.
 */

/**
 * What the user does next. The CLI maps each category to one exit code:
 * - `usage`, `config`, `workspace`, `model_config`: exit 2, fix the input or setup and run again.
 * - `model_answer`, `model_call`, `artifact`, `internal`: exit 1, the run failed (and is
 *   checkpointed where a lane was running).
 * - `interrupted`: the user (Ctrl-C) or a supervisor (SIGTERM) stopped the run: exit 130 or 143,
 *   the run is checkpointed and resumable.
 */
export const ERROR_CATEGORIES = [
  "usage",
  "config",
  "workspace",
  "model_config",
  "model_answer",
  "model_call",
  "artifact",
  "internal",
  "interrupted",
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

export const ERROR_CODES = {
  // usage: the command line or the chat message asked for something that cannot be done.
  REQUEST_EMPTY: "usage",
  REQUEST_TOO_LARGE: "usage",
  BAD_OPTION: "usage",
  TASK_EXISTS: "usage",
  TASK_NOT_FOUND: "usage",
  // The compose lane (ADR 0055): no plan with that id to resume; a plan rejected at the prompt.
  PLAN_NOT_FOUND: "usage",
  TASK_ID_INVALID: "usage",
  THREAD_NOT_FOUND: "usage",
  LANE_WAITING: "usage",
  // Extra verifiers of a task (ADR 0056): more than maxExtraVerifiers, or one without a name/script.
  EXTRA_VERIFIERS_LIMIT: "usage",
  EXTRA_VERIFIER_INVALID: "usage",
  // The daemon's queue (ADR 0051): no such ticket; plan-lint refused it; it is not in a state the
  // command can act on (e.g. retry of a ticket that did not fail).
  TICKET_NOT_FOUND: "usage",
  TICKET_REJECTED: "usage",
  TICKET_STATE: "usage",
  // config: the setup is wrong before any work starts.
  MODEL_CONFIG: "config",
  CASSETTE_INVALID: "config",
  CODER_UNKNOWN: "config",
  CODER_NOT_INSTALLED: "config",
  CODER_MISCONFIGURED: "config",
  // A config file (ADR 0047) is unreadable, not JSON, or has an unknown key or a bad value.
  CONFIG_INVALID: "config",
  // A repository's config file sets a key only the user's own config may set (ADR 0047).
  CONFIG_UNTRUSTED: "config",
  // The daemon's data root (DEVFLOW_HOME) cannot be created or its config.json is invalid.
  DATA_ROOT_UNUSABLE: "config",
  // workspace: the repository or the task's checkout is not in a state devflow can use.
  REPO_UNUSABLE: "workspace",
  CLONE_FAILED: "workspace",
  GIT_FAILED: "workspace",
  TASK_LOCKED: "workspace",
  THREAD_LOCKED: "workspace",
  // Another process is running this plan (`devflow plan --resume <id>` twice at once, ADR 0060).
  PLAN_LOCKED: "workspace",
  // Another `devflow daemon` holds the data root's lock (the daemon command exits 0 on it).
  DAEMON_RUNNING: "workspace",
  CHECKOUT_EXISTS: "workspace",
  CHECKOUT_UNUSABLE: "workspace",
  BAD_REVISION: "workspace",
  COMMIT_REFUSED: "workspace",
  // The compose lane refused to move its integration branch: it would hold more than the verified tasks.
  PLAN_BRANCH_REFUSED: "workspace",
  USER_REPO_CHANGED: "workspace",
  // .devflow/state.sqlite cannot be read, or no longer holds the checkpoint of a task being resumed.
  STATE_UNREADABLE: "workspace",
  CHECKPOINT_LOST: "workspace",
  // model_config: the endpoint refused the configured key or model mid-run.
  MODEL_AUTH: "model_config",
  MODEL_NOT_FOUND: "model_config",
  // model_answer: the model answered, but not validly, even after the repair round.
  MODEL_NO_VALID_ANSWER: "model_answer",
  // model_call: the call itself failed (often transient), or a cassette ran out of answers.
  MODEL_RATE_LIMIT: "model_call",
  MODEL_SERVER: "model_call",
  MODEL_CONNECTION: "model_call",
  MODEL_TIMEOUT: "model_call",
  MODEL_REQUEST: "model_call",
  // The endpoint answered 200, but not in the chat-completions protocol (HTML, no choices).
  MODEL_BAD_RESPONSE: "model_call",
  REPLAY_EXHAUSTED: "model_call",
  // A coder stopped on its provider (auth, rate limit) in a lane run for the daemon, which requeues
  // the ticket instead of ending it blocked (ADR 0052, amendment s16/provfault).
  CODER_PROVIDER_STOPPED: "model_call",
  // artifact: a file under .devflow/ is broken, stale or cannot be written.
  ARTIFACT_INVALID: "artifact",
  ARTIFACT_NOT_JSON: "artifact",
  STALE_REVISION: "artifact",
  HISTORY_CONFLICT: "artifact",
  SCHEMA_FILE_MISSING: "artifact",
  ARTIFACT_PATH_INVALID: "artifact",
  // A ticket's lease was recovered by another process while its holder still worked on it.
  LEASE_LOST: "artifact",
  // The daemon's spend ledger (data/spend.json, ADR 0053) is not JSON or not a SpendLedger.
  SPEND_LEDGER_INVALID: "artifact",
  // internal: a bug or an unexpected state.
  INTERNAL: "internal",
  // interrupted: SIGINT or SIGTERM stopped the run (src/process/stop-signal.ts, ADR 0043).
  INTERRUPTED: "interrupted",
} as const satisfies Record<string, ErrorCategory>;
export type ErrorCode = keyof typeof ERROR_CODES;

interface ModelCallDetails {
  /** The HTTP status, when the endpoint answered. */
  status: number | null;
  /** MODEL_BAD_RESPONSE only: the body was a JSON answer cut off early (transient, unlike HTML). */
  truncated?: boolean;
}

/** Structured data a caller may branch on, per code; codes without an entry carry none. */
export interface DetailsByCode {
  MODEL_NO_VALID_ANSWER: { role: string };
  REPLAY_EXHAUSTED: {
    role: string /** 1-based number of the call that found no answer. */;
    callNumber: number;
    /** The cassette's path (absent where the error was built without one). */
    cassette?: string;
  };
  MODEL_AUTH: ModelCallDetails;
  MODEL_NOT_FOUND: ModelCallDetails;
  MODEL_RATE_LIMIT: ModelCallDetails;
  MODEL_SERVER: ModelCallDetails;
  MODEL_CONNECTION: ModelCallDetails;
  MODEL_TIMEOUT: ModelCallDetails;
  MODEL_REQUEST: ModelCallDetails;
  MODEL_BAD_RESPONSE: ModelCallDetails;
  /**
   * `status`: the coder backend's structured reading; `said`: the CLI's own words (only to tell an
   * exhausted quota from a rate limit).
   */
  CODER_PROVIDER_STOPPED: { status: "auth" | "rate_limit"; coder: string; said: string };
  /** `problems` are `<json pointer>: <message>`. */
  ARTIFACT_INVALID: { schema: string; file: string | null; line: number | null; problems: readonly string[] };
  ARTIFACT_NOT_JSON: { file: string; line: number | null };
  STALE_REVISION: { artifact: string; onDisk: number; expected: number };
  HISTORY_CONFLICT: { file: string; current: string };
  SCHEMA_FILE_MISSING: { file: string };
  /** `taskId`: the task the stopped run worked on, once known. */
  INTERRUPTED: { signal: "SIGINT" | "SIGTERM"; taskId: string | null };
}

export type DetailsOf<C extends ErrorCode> = C extends keyof DetailsByCode ? DetailsByCode[C] : undefined;

export function categoryOf(code: ErrorCode): ErrorCategory {
  return ERROR_CODES[code];
}
