import { type ErrorCategory, isDevflowError, messageOf } from "../errors/index.js";
import { redactSecrets, secretsFromEnv } from "../util/redact.js";
import { EXIT } from "./exit-codes.js";

/** The CLI's next step, for a command that has --resume and for one that has not. */
interface NextStep {
  resumable: string;
  rerun: string;
}

interface CategoryReport {
  exit: number;
  /** The CLI's next step for the category (the error's own hint comes first when it has one). */
  hint: NextStep | null;
  /** Whether DEVFLOW_DEBUG adds the stack trace (failures nobody anticipated in words). */
  stack: boolean;
}

/**
 * What the CLI does per category: usage and setup problems are 2 ("fix and retry"), failures of a
 * run are 1 (the run is checkpointed and can be resumed). Documented in the README.
 */
export const REPORT_BY_CATEGORY: Readonly<Record<ErrorCategory, CategoryReport>> = {
  usage: { exit: EXIT.usage, hint: null, stack: false },
  config: { exit: EXIT.usage, hint: null, stack: false },
  workspace: { exit: EXIT.usage, hint: null, stack: false },
  // A wrong key, model or endpoint is configuration the user fixes, not a crash.
  model_config: {
    exit: EXIT.usage,
    hint: {
      resumable: "fix the model configuration, then continue with --resume",
      rerun: "fix the model configuration, then run the command again",
    },
    stack: false,
  },
  model_answer: {
    exit: EXIT.failure,
    hint: {
      resumable: "the run is checkpointed; fix the model/cassette and continue with --resume",
      rerun: "fix the model/cassette, then run the command again",
    },
    stack: false,
  },
  model_call: { exit: EXIT.failure, hint: null, stack: true },
  artifact: { exit: EXIT.failure, hint: null, stack: true },
  internal: { exit: EXIT.failure, hint: null, stack: true },
  // Normally handled by the command's StopSignals (src/cli/signals.ts); 143 for SIGTERM, see below.
  interrupted: {
    exit: EXIT.interrupted,
    hint: { resumable: "the run is checkpointed: continue with --resume", rerun: "run the command again" },
    stack: false,
  },
};

export interface ReportContext {
  /** Whether the command that failed has --resume (only then is it suggested). */
  resumable: boolean;
}

/** One clear line on stderr (plus a hint when there is one) and the documented exit code. */
export function reportError(
  error: unknown,
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  context: ReportContext = { resumable: false },
): number {
  const category = isDevflowError(error) ? error.category : "internal";
  const report = REPORT_BY_CATEGORY[category];
  const secrets = secretsFromEnv(process.env);
  write(`devflow: ${redactSecrets(headline(error), secrets)}`);
  const next = report.hint === null ? null : context.resumable ? report.hint.resumable : report.hint.rerun;
  const hint = (isDevflowError(error) ? error.hint : null) ?? next;
  if (hint) write(`  → ${redactSecrets(hint, secrets)}`);
  if (report.stack && process.env.DEVFLOW_DEBUG && error instanceof Error && error.stack)
    write(redactSecrets(error.stack, secrets));
  if (isDevflowError(error, "INTERRUPTED") && error.details.signal === "SIGTERM") return EXIT.terminated;
  return report.exit;
}

/** The message, led by the role whose model failed to answer (the message alone may not say). */
function headline(error: unknown): string {
  if (isDevflowError(error, "MODEL_NO_VALID_ANSWER"))
    return `the ${error.details.role} model gave no valid answer: ${error.message}`;
  return messageOf(error);
}
