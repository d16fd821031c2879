import type { DevflowEvent } from "../artifacts/schemas/index.js";
import { eventLine, writeLine } from "./json-output.js";

export type Out = (text: string) => void;

// The human display (live line, plain lines, colour, --quiet/--verbose) is human-progress.ts.

/** --json: every event as one JSON line on stdout, for scripts. */
export function jsonProgress(out: Out) {
  return (event: DevflowEvent) => writeLine(out, eventLine(event));
}
