import { excerpt, MIN_EXCERPT_BYTES } from "../util/truncate.js";

const note = (omittedBytes: number, totalBytes: number, narrowHint: string): string =>
  `\n[Result truncated: ${omittedBytes} of ${totalBytes} bytes were cut from the middle. To get the part you need, ${narrowHint}.]`;

/**
 * Caps one tool result at `maxBytes` (UTF-8, note included): head and tail are kept because both
 * matter (a command's first error and its final summary), and the note tells the model how to
 * ask for less instead of repeating the same call.
 */
export function limitToolOutput(text: string, maxBytes: number, narrowHint: string): string {
  const totalBytes = Buffer.byteLength(text);
  if (totalBytes <= maxBytes) return text;
  const reserve = Buffer.byteLength(note(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, narrowHint));
  const cut = excerpt(text, Math.max(MIN_EXCERPT_BYTES, maxBytes - reserve));
  return `${cut.text}${note(cut.omittedBytes, totalBytes, narrowHint)}`;
}
