import {
  REPEATED_OUTPUT_THRESHOLD,
  REPETITION_MIN_TEXT_CHARS,
  REPETITION_MIN_UNIQUE_CHARS,
  REPETITION_PROBE_MAX_CHARS,
  REPETITION_PROBE_MIN_CHARS,
  REPETITION_WINDOW_CHARS,
} from "./thresholds.js";
import type { GuardTrip } from "./types.js";

const distinctChars = (text: string): number => new Set(text).size;

/**
 * junco's RepetitionGuard on one text: the text's last characters (the probe) occurring again and
 * again near its end means the model is looping inside one answer.
 */
export function repeatsWithin(text: string): boolean {
  if (text.length < REPETITION_MIN_TEXT_CHARS) return false;
  const window = text.slice(-REPETITION_WINDOW_CHARS);
  const probeLength = Math.max(
    REPETITION_PROBE_MIN_CHARS,
    Math.min(REPETITION_PROBE_MAX_CHARS, Math.floor(window.length / 3)),
  );
  const probe = window.slice(-probeLength);
  if (distinctChars(probe) < REPETITION_MIN_UNIQUE_CHARS) return false;
  let count = 0;
  for (let i = window.indexOf(probe); i !== -1; i = window.indexOf(probe, i + 1)) {
    count++;
    if (count >= REPEATED_OUTPUT_THRESHOLD) return true;
  }
  return false;
}

/**
 * Repeated output: one assistant text looping inside itself, or the same text (whitespace aside)
 * written REPEATED_OUTPUT_THRESHOLD times in one run, which is a model going round in circles.
 */
export class RepeatedOutputGuard {
  private seen = new Map<string, number>();

  observe(text: string): GuardTrip | null {
    const normalized = text.replace(/\s+/g, " ").trim();
    if (distinctChars(normalized) < REPETITION_MIN_UNIQUE_CHARS) return null;
    if (repeatsWithin(text)) {
      return { kind: "repeated_output", detail: "the same passage repeats over and over within one answer" };
    }
    const count = (this.seen.get(normalized) ?? 0) + 1;
    this.seen.set(normalized, count);
    if (count < REPEATED_OUTPUT_THRESHOLD) return null;
    return {
      kind: "repeated_output",
      detail: `the same answer was written ${count} times: "${preview(normalized)}"`,
    };
  }

  reset(): void {
    this.seen = new Map();
  }
}

function preview(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}
