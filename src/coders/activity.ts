/**
 * The coder's latest activity, for the live progress line (issue 11): one short line of text, e.g.
 * `$ npm test` or `Edit src/a.ts`. It is shown to the person watching and never read by anything
 * that decides a verdict. The text comes from the coder's own output (already redacted by the
 * process runner), so it is untrusted: control characters are removed and it is bounded here.
 */
export type CoderActivity = (text: string) => void;

/** Longest activity text passed on; the terminal line trims it further to its width. */
export const MAX_ACTIVITY_CHARS = 160;

// C0/C1 controls (ESC, BEL, CR, backspace ...) would let a coder move the cursor or recolour the
// user's terminal through the progress line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/** One line of at most `max` characters, control characters and runs of whitespace collapsed. */
export function activityText(text: string, max = MAX_ACTIVITY_CHARS): string {
  const flat = text.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Wraps the caller's callback so reporting can never affect the run: empty texts are dropped and a
 * throwing callback is ignored (a throw inside a runner's stdout-line handler would fail the run).
 */
export function reportActivity(
  callback: CoderActivity | undefined,
): (text: string | null | undefined) => void {
  if (callback === undefined) return () => {};
  return (text) => {
    if (!text) return;
    const line = activityText(text);
    if (line === "") return;
    try {
      callback(line);
    } catch {
      // Progress display only: a failing display must not change how the coder run ends.
    }
  };
}
