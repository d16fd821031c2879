/**
 * Linux refuses a single argv string longer than MAX_ARG_STRLEN (32 pages = 128 KiB) with E2BIG,
 * so a prompt only travels as an argument below this size (with headroom for multi-byte text).
 */
export const MAX_PROMPT_ARG_BYTES = 120_000;

export function fitsInArgument(prompt: string): boolean {
  return Buffer.byteLength(prompt, "utf8") <= MAX_PROMPT_ARG_BYTES;
}

/** For CLIs whose only headless prompt channel is an argument. */
export function assertPromptFitsArgument(backend: string, prompt: string): void {
  if (fitsInArgument(prompt)) return;
  const bytes = Buffer.byteLength(prompt, "utf8");
  throw new Error(
    `${backend} takes its prompt as a command-line argument, and this prompt is ${bytes} bytes ` +
      `(the limit for one argument is ${MAX_PROMPT_ARG_BYTES}). Shorten the task context or use a ` +
      "backend that reads the prompt from stdin or a file (junie, claude, codex, aider).",
  );
}
