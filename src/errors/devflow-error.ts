import { redact, redactDeep } from "../util/redact.js";
import { categoryOf, type DetailsOf, type ErrorCategory, type ErrorCode } from "./codes.js";

interface BaseOptions {
  /** The one actionable next step, shown under the message (e.g. how to install a coder). */
  hint?: string | null;
  cause?: unknown;
}

/** A code with details must be given them; a code without may not. */
export type DevflowErrorOptions<C extends ErrorCode> = [DetailsOf<C>] extends [undefined]
  ? BaseOptions & { details?: undefined }
  : BaseOptions & { details: DetailsOf<C> };

type OptionsArg<C extends ErrorCode> = [DetailsOf<C>] extends [undefined]
  ? [options?: DevflowErrorOptions<C>]
  : [options: DevflowErrorOptions<C>];

/**
 * devflow's one error type. The message is shown to the user as-is, so it says what is wrong and
 * what to do; `code` is what callers branch on, `category` what the CLI maps to an exit code.
 */
export class DevflowError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = "DevflowError";
  readonly code: C;
  readonly category: ErrorCategory;
  readonly hint: string | null;
  readonly details: DetailsOf<C>;

  constructor(code: C, message: string, ...[options]: OptionsArg<C>) {
    // Redacted at birth (ADR 0030): a message quoting a server's body or a coder's output is
    // printed, put in --json, events.jsonl and the checkpoint; redacting here covers them all.
    super(redact(message), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.category = categoryOf(code);
    this.hint = options?.hint == null ? null : redact(options.hint);
    // The conditional options type guarantees details for exactly the codes that have them.
    this.details = redactDeep(options?.details) as DetailsOf<C>;
  }
}

/** Whether `error` is a DevflowError (with `code`, when given); narrows its details. */
export function isDevflowError<C extends ErrorCode>(error: unknown, code?: C): error is DevflowError<C> {
  return error instanceof DevflowError && (code === undefined || error.code === code);
}
