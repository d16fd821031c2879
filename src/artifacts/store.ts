import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { link, mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { z } from "zod";
import { writeFileDurably } from "../util/durable-write.js";
import { redact, redactDeep } from "../util/redact.js";
import { artifactParseError, artifactPathError, historyConflictError, staleRevisionError } from "./errors.js";
import { appendJsonLine, assertJsonlFile, isNotFound, type JsonlFile, readJsonLines } from "./jsonl.js";
import {
  ALL_SCHEMAS,
  ATTEMPT_ID,
  REVISIONED,
  type RevisionedName,
  type SchemaName,
} from "./schemas/index.js";
import {
  assertAttemptId,
  attemptNumber,
  historyFileName,
  historyRevisionOf,
  resolveInside,
} from "./task-paths.js";
import {
  type CheckTarget,
  isSchemaName,
  parseArtifact,
  parseWithZod,
  type SchemaValue,
  validateArtifact,
} from "./validate.js";
import { serializeWrites, TASK_LOCK_FILES } from "./write-queue.js";

/** What a caller hands to `write`: the artifact without its revision (the store assigns it). */
export type RevisionedInput<N extends RevisionedName> = Omit<z.input<(typeof REVISIONED)[N]>, "revision"> & {
  revision?: number;
};

export interface WriteOptions {
  /** The revision this value was computed from: the one on disk now, 0 when the artifact does not exist yet. */
  expectedRevision: number;
}

const HISTORY_DIR = "history";
const ATTEMPTS_DIR = "attempts";
/** Files the store writes itself (validated); writeText must not bypass that. */
const MANAGED = new Set<string>([
  ...Object.keys(REVISIONED).map((n) => `${n}.json`),
  "lessons.jsonl",
  "events.jsonl",
]);

/**
 * The artifacts of one task, in the dir it is given (src/home puts it at
 * `<repo>/.devflow/iterate/<task_id>/`; open it there with `openTaskStore`). Revisioned artifacts are
 * validated on every read and write (ajv against schemas/, then zod) and replaced atomically; every
 * earlier revision is kept in history/ and a write based on a stale revision is refused.
 */
export class ArtifactStore {
  /** sha256 of the bytes this instance last wrote, by absolute path (ADR 0018). */
  private readonly written = new Map<string, string>();
  /** Files found changed behind this instance's back, kept even after a later write replaced them. */
  private readonly tampered = new Set<string>();

  /** The text (before redaction) of the last writeText and its file, to recognise the same text written again. */
  private lastText: { file: string; text: string } | null = null;

  /** The last parse of each file read, by the exact text and the schema it was checked with. */
  private readonly parsed = new Map<string, { schema: unknown; raw: string; value: unknown }>();

  constructor(readonly dir: string) {}

  /**
   * Task-dir files (relative paths, sorted) whose bytes differ from what this instance last wrote
   * there: changed, replaced or deleted by someone else (a coder, a process it left behind). A file
   * found changed stays listed even after the store overwrote it, so a later write cannot launder
   * the change. Only covers files written by this instance (a resumed run starts with none).
   */
  async changedBehindOurBack(): Promise<string[]> {
    for (const file of this.written.keys()) await this.noteIfChanged(file);
    return [...this.tampered].map((file) => relative(this.dir, file)).sort();
  }

  private async noteIfChanged(file: string): Promise<void> {
    const expected = this.written.get(file);
    if (expected === undefined) return;
    const raw = await readOrNull(file);
    if (raw === null || sha256(raw) !== expected) this.tampered.add(file);
  }

  private async writeTracked(file: string, text: string): Promise<void> {
    await this.noteIfChanged(file);
    await writeFileDurably(file, text);
    this.written.set(file, sha256(text));
  }

  /** Absolute path of a revisioned artifact's current file. */
  path(name: RevisionedName): string {
    return join(this.dir, `${assertRevisionedName(name)}.json`);
  }

  /** The current revision, or null when the artifact has not been written yet. */
  async read<N extends RevisionedName>(name: N): Promise<SchemaValue<N> | null> {
    const loaded = await this.load(name, this.path(name));
    return loaded?.value ?? null;
  }

  /** 0 when the artifact does not exist yet: the `expectedRevision` of a first write. */
  async currentRevision(name: RevisionedName): Promise<number> {
    return (await this.read(name))?.revision ?? 0;
  }

  /** A specific revision (the current one or one kept in history/), or null when it was never written. */
  async readRevision<N extends RevisionedName>(name: N, revision: number): Promise<SchemaValue<N> | null> {
    const current = await this.read(name);
    if (current?.revision === revision) return current;
    const loaded = await this.load(name, join(this.dir, HISTORY_DIR, historyFileName(name, revision)));
    return loaded?.value ?? null;
  }

  /**
   * Writes revision `expectedRevision + 1`. Validation comes first (an invalid value never reaches
   * disk); then, queued behind this process's other writes to the task dir (another process
   * cannot write it: it would need the task lock), the revision on disk is compared, the current file is
   * copied to history/ and the new one renamed into place.
   */
  async write<N extends RevisionedName>(
    name: N,
    value: RevisionedInput<N>,
    options: WriteOptions,
  ): Promise<SchemaValue<N>> {
    const file = this.path(name);
    const expected = options.expectedRevision;
    if (!Number.isInteger(expected) || expected < 0) {
      throw artifactPathError(
        `expectedRevision for ${name} must be the revision read from disk (an integer >= 0, 0 for a new artifact), got ${String(expected)}`,
      );
    }
    // Redacted before validation: a model that repeats a secret must not get it written (ADR 0030).
    const candidate = { ...redactDeep(value), revision: expected + 1 };
    const parsed = parseArtifact(name, candidate, { file, action: "write" });
    await mkdir(this.dir, { recursive: true });
    await serializeWrites(this.dir, async () => {
      const current = await this.load(name, file);
      const onDisk = current?.value.revision ?? 0;
      if (onDisk !== expected) throw staleRevisionError(name, onDisk, expected);
      if (current) await this.keepHistory(name, onDisk, file, current.raw);
      const text = serialize(parsed);
      await this.writeTracked(file, text);
      this.rememberWritten(file, name, text);
    });
    return parsed;
  }

  /** Revisions kept in history/ (ascending); the current revision is not among them. */
  async history(name: RevisionedName): Promise<number[]> {
    const entries = await readdirOrEmpty(join(this.dir, HISTORY_DIR));
    const revisions = entries.flatMap((entry) => {
      const revision = historyRevisionOf(assertRevisionedName(name), entry);
      return revision === null ? [] : [revision];
    });
    return revisions.sort((a, b) => a - b);
  }

  /** Appends one validated line to lessons.jsonl or events.jsonl. */
  async appendJsonl<S extends z.ZodType>(
    file: JsonlFile,
    schema: S,
    value: z.input<S>,
  ): Promise<z.output<S>> {
    const log = assertJsonlFile(file);
    await mkdir(this.dir, { recursive: true });
    return appendJsonLine(join(this.dir, log), log, schema, redactDeep(value));
  }

  /** Every line of a task log, validated; a bad line is reported with its line number. */
  async readJsonl<S extends z.ZodType>(file: JsonlFile, schema: S): Promise<z.output<S>[]> {
    const log = assertJsonlFile(file);
    return readJsonLines(join(this.dir, log), log, schema);
  }

  /** Creates and returns `attempts/<attemptId>/` (absolute). Synchronous so callers can build paths from it directly. */
  attemptDir(attemptId: string): string {
    const dir = join(this.dir, ATTEMPTS_DIR, assertAttemptId(attemptId));
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Task-dir-relative path of a file of an attempt, the form artifacts use to reference it. */
  attemptRef(attemptId: string, relPath: string): string {
    resolveInside(this.dir, relPath, "attempt file");
    return `${ATTEMPTS_DIR}/${assertAttemptId(attemptId)}/${relPath}`;
  }

  /** Validates and atomically writes an attempt's JSON file (e.g. `coder_report.json`, `verifiers/seam.json`). */
  async writeAttemptJson<S extends z.ZodType>(
    attemptId: string,
    relPath: string,
    schema: S,
    value: z.input<S>,
  ): Promise<z.output<S>> {
    const file = this.attemptJsonPath(attemptId, relPath);
    const parsed = checkWith(schema, redactDeep(value), { file, action: "write" });
    await mkdir(dirname(file), { recursive: true });
    const text = serialize(parsed);
    await this.writeTracked(file, text);
    this.rememberWritten(file, schema, text);
    return parsed;
  }

  /** An attempt's JSON file, validated, or null when it was not written. */
  async readAttemptJson<S extends z.ZodType>(
    attemptId: string,
    relPath: string,
    schema: S,
  ): Promise<z.output<S> | null> {
    const file = this.attemptJsonPath(attemptId, relPath);
    const raw = await readOrNull(file);
    if (raw === null) return null;
    return this.parsedOnce(file, schema, raw, () =>
      checkWith(schema, parseJson(file, raw), { file, action: "read" }),
    );
  }

  /** Attempt ids that exist on disk, in execution order (attempt-009 < attempt-010 < attempt-100 < attempt-1000). */
  async listAttempts(): Promise<string[]> {
    const entries = await readdir(join(this.dir, ATTEMPTS_DIR), { withFileTypes: true }).catch(
      (error: unknown) => {
        if (isNotFound(error)) return [];
        throw error;
      },
    );
    return entries
      .filter((e) => e.isDirectory() && ATTEMPT_ID.test(e.name))
      .map((e) => e.name)
      .sort((a, b) => attemptNumber(a) - attemptNumber(b));
  }

  /**
   * Atomically writes a non-JSON file of the task dir (confirmation.md, steps, diff.patch, logs).
   * JSON goes through write/writeAttemptJson/appendJsonl so it is always validated.
   */
  async writeText(relPath: string, text: string, options: { sameAs?: string } = {}): Promise<string> {
    const file = resolveInside(this.dir, relPath, "task file");
    if (MANAGED.has(relPath) || relPath.startsWith(`${HISTORY_DIR}/`) || TASK_LOCK_FILES.includes(relPath)) {
      throw artifactPathError(`${relPath} is managed by the artifact store; it cannot be written as text`);
    }
    if (relPath.endsWith(".json") || relPath.endsWith(".jsonl")) {
      throw artifactPathError(
        `refusing to write ${relPath} as text: JSON artifacts go through write(), writeAttemptJson() or appendJsonl() so they are validated`,
      );
    }
    await mkdir(dirname(file), { recursive: true });
    const source = options.sameAs === undefined ? null : resolveInside(this.dir, options.sameAs, "task file");
    if (source !== null && (await this.linkSameText(source, file, text))) return file;
    await this.writeTracked(file, redact(text));
    this.lastText = { file, text };
    return file;
  }

  /**
   * `file` as a hard link to `source` when the last writeText wrote exactly `text` there (issue 11:
   * a first attempt's diff and its cumulative diff are the same bytes; a 10.7 MB diff was written
   * twice). The link gets the source's recorded hash, so a change to either name behind the store's
   * back is found for both (changedBehindOurBack). Put in place by rename like every write; a file
   * system without hard links gets the bytes written instead (false).
   */
  private async linkSameText(source: string, file: string, text: string): Promise<boolean> {
    const sha = this.written.get(source);
    if (this.lastText?.file !== source || this.lastText.text !== text || sha === undefined) return false;
    await this.noteIfChanged(file);
    const staging = `${file}.link-${process.pid}`;
    try {
      await rm(staging, { force: true });
      await link(source, staging);
      await rename(staging, file);
    } catch {
      await rm(staging, { force: true });
      return false;
    }
    this.written.set(file, sha);
    return true;
  }

  /** A text file of the task dir, or null when it does not exist. */
  async readText(relPath: string): Promise<string | null> {
    return readOrNull(resolveInside(this.dir, relPath, "task file"));
  }

  private attemptJsonPath(attemptId: string, relPath: string): string {
    if (!relPath.endsWith(".json")) {
      throw artifactPathError(`attempt JSON file ${JSON.stringify(relPath)} must end in .json`);
    }
    return resolveInside(join(this.dir, ATTEMPTS_DIR, assertAttemptId(attemptId)), relPath, "attempt file");
  }

  private async load<N extends RevisionedName>(
    name: N,
    file: string,
  ): Promise<{ raw: string; value: SchemaValue<N> } | null> {
    const raw = await readOrNull(file);
    if (raw === null) return null;
    const value = this.parsedOnce(file, name, raw, () =>
      parseArtifact(name, parseJson(file, raw), { file, action: "read" }),
    );
    return { raw, value };
  }

  /**
   * What `parse` makes of `raw` just read from `file`, from the last read of exactly this text
   * checked with the same schema when there was one (issue 11: an attempt read the task and the
   * observation three times and iterator_run.json at every state change, each time through
   * JSON.parse, ajv and zod). Keyed by the text itself, so a file anyone changed is parsed and
   * checked again; every caller gets its own copy, so one that edits its value cannot change what
   * the next read returns. A read that fails keeps nothing.
   */
  private parsedOnce<T>(file: string, schema: unknown, raw: string, parse: () => T): T {
    const kept = this.parsed.get(file);
    if (kept && kept.schema === schema && kept.raw === raw) return structuredClone(kept.value) as T;
    const value = parse();
    this.remember(file, schema, raw, value);
    return value;
  }

  /**
   * Keeps `value` as what `raw` in `file` parses to with `schema`: after a read, and after a write
   * (the value devflow checked and serialized to exactly `raw`), so reading back bytes devflow just
   * wrote, as the tamper check does with every envelope, needs no second parse while they are unchanged.
   */
  private remember(file: string, schema: unknown, raw: string, value: unknown): void {
    this.parsed.set(file, { schema, raw, value: structuredClone(value) });
  }

  /**
   * Keeps what the bytes devflow just wrote mean, read back from those bytes (JSON.parse alone,
   * no ajv or zod: the text is the serialization of a value the schema has just checked), never
   * the value serialized: that can differ from its JSON (-0, a key holding undefined, a toJSON),
   * and the cache must answer exactly what a cold read of the file answers (review23, attack23).
   */
  private rememberWritten(file: string, schema: unknown, raw: string): void {
    this.parsed.set(file, { schema, raw, value: JSON.parse(raw) });
  }

  /**
   * Keeps the current bytes in history/ before they are replaced; safe to repeat after a crash.
   * The current file is hard-linked there (issue 11: a copy was a second atomic write, ~1.4 ms of
   * CPU, on every revisioned write, ~4 per attempt): every write replaces the current file by
   * rename (writeTracked), never in place, so the linked inode keeps exactly the old revision's
   * bytes once the new one is renamed over its name. The link is read back and must hold `raw`
   * (the bytes this write was based on); anything else (no hard links on this file system, the
   * file changed since it was read) removes the link and writes `raw` as before.
   */
  private async keepHistory(
    name: RevisionedName,
    revision: number,
    currentFile: string,
    raw: string,
  ): Promise<void> {
    const historyFile = join(this.dir, HISTORY_DIR, historyFileName(name, revision));
    const existing = await readOrNull(historyFile);
    if (existing === raw) return;
    if (existing !== null) throw historyConflictError(historyFile, currentFile);
    await mkdir(dirname(historyFile), { recursive: true });
    if (await linkedWithBytes(currentFile, historyFile, raw)) return;
    await writeFileDurably(historyFile, raw);
  }
}

/**
 * ajv too when the zod schema is one of ALL_SCHEMAS (found by identity), so attempt files get the
 * same on-disk contract as top-level artifacts; other schemas are checked by zod alone.
 */
function checkWith<S extends z.ZodType>(schema: S, value: unknown, target: CheckTarget): z.output<S> {
  const name = schemaNameOf(schema);
  if (name !== null) validateArtifact(name, value, target);
  return parseWithZod(name ?? "value", schema, value, target);
}

function schemaNameOf(schema: z.ZodType): SchemaName | null {
  for (const [name, candidate] of Object.entries(ALL_SCHEMAS)) {
    if (candidate === schema && isSchemaName(name)) return name;
  }
  return null;
}

const isRevisionedName = (name: string): name is RevisionedName => Object.hasOwn(REVISIONED, name);

/** Callers are typed, but names also arrive from CLI flags and scenario files. */
function assertRevisionedName(name: string): RevisionedName {
  if (!isRevisionedName(name)) {
    throw artifactPathError(
      `${JSON.stringify(name)} is not a revisioned artifact: use one of ${Object.keys(REVISIONED).join(", ")}`,
    );
  }
  return name;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function serialize(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function parseJson(file: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw artifactParseError(file, error instanceof Error ? error.message : String(error));
  }
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/**
 * `target` made a hard link to `source` and holding exactly `raw`, or false with nothing left at
 * `target` (it did not exist before: the caller checked).
 */
async function linkedWithBytes(source: string, target: string, raw: string): Promise<boolean> {
  try {
    await link(source, target);
  } catch {
    return false;
  }
  if ((await readOrNull(target)) === raw) return true;
  await rm(target, { force: true });
  return false;
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
