import { readFile, stat } from "node:fs/promises";
import { type JsonObject, parseJsonObject } from "./json.js";

/** Junie's output embeds every changed file before/after, so an output file is read only up to this size. */
export const MAX_OUTPUT_FILE_BYTES = 256 * 1024 * 1024;

export type OutputFileRead =
  | { kind: "missing" }
  | { kind: "too_large"; bytes: number }
  | { kind: "invalid"; excerpt: string }
  | { kind: "ok"; value: JsonObject };

/** Reads a JSON object a CLI wrote to a file, telling "not written" apart from "written but unreadable". */
export async function readJsonOutputFile(path: string): Promise<OutputFileRead> {
  let bytes: number;
  try {
    bytes = (await stat(path)).size;
  } catch {
    return { kind: "missing" };
  }
  if (bytes > MAX_OUTPUT_FILE_BYTES) return { kind: "too_large", bytes };
  const text = await readFile(path, "utf8");
  const value = parseJsonObject(text);
  return value === null ? { kind: "invalid", excerpt: text.slice(0, 400) } : { kind: "ok", value };
}
