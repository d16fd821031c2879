/**
 * Every failure of the artifact layer is one of these classes, so callers can tell a stale write
 * (re-read and retry) from a broken file (a human has to look) without parsing messages.
 */

/** A value (in memory or read from disk) does not match its schema. `problems` are `<json pointer>: <message>`. */
export class ArtifactValidationError extends Error {
  override readonly name = "ArtifactValidationError";
  readonly schema: string;
  readonly file: string | null;
  readonly line: number | null;
  readonly problems: readonly string[];

  constructor(params: {
    schema: string;
    file: string | null;
    line: number | null;
    problems: readonly string[];
    context: string;
    hint: string;
  }) {
    const list = params.problems.map((p) => `  - ${p}`).join("\n");
    super(`${params.context}: not a valid ${params.schema}\n${list}\n${params.hint}`);
    this.schema = params.schema;
    this.file = params.file;
    this.line = params.line;
    this.problems = params.problems;
  }
}

/** A file on disk is not JSON (or a JSONL line is not). */
export class ArtifactParseError extends Error {
  override readonly name = "ArtifactParseError";
  constructor(
    readonly file: string,
    detail: string,
    readonly line: number | null = null,
  ) {
    const where = line === null ? file : `${file} line ${line}`;
    super(
      `${where} is not valid JSON (${detail}). It was probably edited by hand or cut short by a crash: fix or remove it.`,
    );
  }
}

/** Optimistic concurrency: the write was computed from an older revision than the one on disk. */
export class StaleRevisionError extends Error {
  override readonly name = "StaleRevisionError";
  constructor(
    readonly artifact: string,
    readonly onDisk: number,
    readonly expected: number,
  ) {
    super(
      `${artifact} is at r${onDisk} on disk but this write was based on r${expected}: re-read ${artifact}, re-apply the change and write again`,
    );
  }
}

/** history/<name>.r<NNN>.json already holds different content: history is never rewritten. */
export class HistoryConflictError extends Error {
  override readonly name = "HistoryConflictError";
  constructor(
    readonly file: string,
    readonly current: string,
  ) {
    super(
      `${file} already exists with different content than ${current}, which claims the same revision; history is never rewritten. Compare the two files and rename or remove the wrong one before writing again.`,
    );
  }
}

/** A generated JSON Schema under schemas/ is missing or unreadable. */
export class SchemaFileError extends Error {
  override readonly name = "SchemaFileError";
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(
      `${file} ${detail}: run \`npm run schemas\` to regenerate the JSON Schemas from src/artifacts/schemas`,
    );
  }
}

/** A task id, attempt id or relative path would leave the task dir or is not well-formed. */
export class ArtifactPathError extends Error {
  override readonly name = "ArtifactPathError";
}

/** The task dir lock could not be taken (another writer holds it) or was lost mid-write. */
export class ArtifactLockError extends Error {
  override readonly name = "ArtifactLockError";
}
