import { type JsonObject, parseJsonObject } from "./json.js";

/** In-memory cap for a CLI's stdout kept to parse one JSON document at the end (the transcript has it all). */
export const MAX_STDOUT_DOCUMENT_CHARS = 64 * 1024 * 1024;
const MAX_START_CANDIDATES = 200;

/**
 * Collects stdout lines for CLIs that print one (possibly pretty-printed) JSON document instead of
 * an event stream. Past the cap it stops collecting and reports the document as unreadable.
 */
export class StdoutDocument {
  private readonly lines: string[] = [];
  private chars = 0;
  overflowed = false;

  constructor(private readonly maxChars = MAX_STDOUT_DOCUMENT_CHARS) {}

  push(line: string): void {
    if (this.overflowed) return;
    this.chars += line.length + 1;
    if (this.chars > this.maxChars) {
      this.overflowed = true;
      this.lines.length = 0;
      return;
    }
    this.lines.push(line);
  }

  text(): string {
    return this.lines.join("\n");
  }

  /**
   * The JSON object on stdout: the whole text when it is one document, else the last document that
   * starts on a line of its own (CLIs sometimes print warnings before their JSON).
   */
  lastObject(): JsonObject | null {
    const whole = parseJsonObject(this.text());
    if (whole !== null) return whole;
    let tries = 0;
    // Bounded: each try re-joins the tail, and a real document starts within a few hundred brace lines.
    for (let start = this.lines.length - 1; start >= 0 && tries < MAX_START_CANDIDATES; start--) {
      if (!this.lines[start]?.trimStart().startsWith("{")) continue;
      tries++;
      const candidate = parseJsonObject(this.lines.slice(start).join("\n"));
      if (candidate !== null) return candidate;
    }
    return null;
  }
}
