import { DevflowError } from "../errors/index.js";

/**
 * The largest request devflow takes, in UTF-8 bytes. 64 KiB is a long bug report with a pasted
 * stack trace or log excerpt (about 16k tokens); the request is copied into every model prompt of
 * the task and every checkpoint in state.sqlite, so a 1 MiB request made a 58 MiB state file and
 * prompts past most models' context. Longer material belongs in a file the request names.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024;
export const MAX_REQUEST_ENV = "DEVFLOW_MAX_REQUEST_BYTES";

/** The limit: an explicit one (the --max-request-bytes flag, a caller's config), else the environment, else the default. */
export function maxRequestBytes(explicit: number | undefined, env: NodeJS.ProcessEnv): number {
  if (explicit !== undefined) return explicit;
  const raw = env[MAX_REQUEST_ENV]?.trim();
  if (!raw) return DEFAULT_MAX_REQUEST_BYTES;
  const bytes = Number(raw);
  if (!Number.isInteger(bytes) || bytes < 1)
    throw new DevflowError(
      "BAD_OPTION",
      `${MAX_REQUEST_ENV} must be a whole number of bytes ≥ 1 (got ${JSON.stringify(raw)})`,
    );
  return bytes;
}

/** Refuses a request over the limit, before anything is stored or sent. */
export function assertRequestSize(request: string, limit: number): void {
  const bytes = Buffer.byteLength(request, "utf8");
  if (bytes <= limit) return;
  throw new DevflowError(
    "REQUEST_TOO_LARGE",
    `the request is ${bytes} bytes, over the limit of ${limit} bytes (it is copied into every prompt and checkpoint); put long logs or text in a file in the repository and name the file, or raise the limit with ${MAX_REQUEST_ENV}=<bytes>`,
  );
}
