import { readFileSync } from "node:fs";
import { z } from "zod";
import { DevflowError } from "../errors/index.js";
import { ROLES, type Role } from "./contract.js";

export const CASSETTE_VERSION = 1;

const EntryUsage = z.strictObject({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
});

/** The answer to a structured call: the tool-call arguments (or JSON content) the model gave. */
const StructuredEntry = z.strictObject({
  structured: z.record(z.string(), z.unknown()),
  /** Which bound tool receives the answer, when it cannot be inferred (see README). */
  tool: z.string().min(1).optional(),
  usage: EntryUsage.optional(),
  /** Free text for people writing cassettes by hand; ignored. */
  note: z.string().optional(),
});

const CassetteToolCall = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  id: z.string().min(1).optional(),
});

/** A raw assistant message, as a tool-using agent sees it. */
const MessageEntry = z.strictObject({
  content: z.string(),
  tool_calls: z.array(CassetteToolCall).optional(),
  usage: EntryUsage.optional(),
  note: z.string().optional(),
});

export const CassetteEntry = z.union([StructuredEntry, MessageEntry]);
export type CassetteEntry = z.infer<typeof CassetteEntry>;
export type StructuredEntry = z.infer<typeof StructuredEntry>;

export interface Cassette {
  version: typeof CASSETTE_VERSION;
  calls: Partial<Record<Role, CassetteEntry[]>>;
}

export function isStructuredEntry(entry: CassetteEntry): entry is StructuredEntry {
  return "structured" in entry;
}

/** Reads and checks a cassette; every problem names the file and the exact place in it. */
export function loadCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = err instanceof Error && "code" in err ? String(err.code) : "";
    const why = code === "ENOENT" ? "file not found" : `cannot read it (${code || String(err)})`;
    throw new DevflowError(
      "CASSETTE_INVALID",
      `cassette ${path}: ${why}. Check the path, or create the cassette by running in record mode.`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new DevflowError("CASSETTE_INVALID", `cassette ${path}: not valid JSON (${why})`);
  }
  return parseCassette(path, data);
}

export function parseCassette(path: string, data: unknown): Cassette {
  const problem = (where: string, what: string) =>
    new DevflowError("CASSETTE_INVALID", `cassette ${path}: ${where}: ${what}`);
  if (!isPlainObject(data)) {
    throw problem("top level", 'expected an object { "version": 1, "calls": { "<role>": [...] } }');
  }
  for (const key of Object.keys(data)) {
    if (key !== "version" && key !== "calls") throw problem(key, 'unknown key (allowed: "version", "calls")');
  }
  if (data.version !== CASSETTE_VERSION) {
    throw problem("version", `expected ${CASSETTE_VERSION}, found ${JSON.stringify(data.version)}`);
  }
  if (!isPlainObject(data.calls)) {
    throw problem("calls", "expected an object mapping role names to arrays of entries");
  }
  const calls: Cassette["calls"] = {};
  for (const [role, entries] of Object.entries(data.calls)) {
    if (!isRole(role)) throw problem(`calls.${role}`, `unknown role (known roles: ${ROLES.join(", ")})`);
    if (!Array.isArray(entries)) throw problem(`calls.${role}`, "expected an array of entries");
    calls[role] = entries.map((entry: unknown, i) => {
      const parsed = parseEntry(entry);
      if (typeof parsed === "string") throw problem(`calls.${role}[${i}]`, parsed);
      return parsed;
    });
  }
  return { version: CASSETTE_VERSION, calls };
}

/** The entry, or what is wrong with it. */
function parseEntry(entry: unknown): CassetteEntry | string {
  const hasStructured = isPlainObject(entry) && "structured" in entry;
  const hasContent = isPlainObject(entry) && "content" in entry;
  if (hasStructured === hasContent) {
    return 'an entry has exactly one of "structured" (an object) or "content" (a string, with optional "tool_calls")';
  }
  const parsed = (hasStructured ? StructuredEntry : MessageEntry).safeParse(entry);
  if (parsed.success) return parsed.data;
  return parsed.error.issues
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
