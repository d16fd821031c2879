import { DevflowError } from "../errors/index.js";

/**
 * Every failure of the artifact layer is a DevflowError with one of these codes, so callers can
 * tell a stale write (STALE_REVISION: re-read and retry) from a broken file (ARTIFACT_INVALID,
 * ARTIFACT_NOT_JSON: a human has to look) without parsing messages.
 */

/** A value (in memory or read from disk) does not match its schema. `problems` are `<json pointer>: <message>`. */
export function artifactValidationError(params: {
  schema: string;
  file: string | null;
  line: number | null;
  problems: readonly string[];
  context: string;
  hint: string;
}): DevflowError<"ARTIFACT_INVALID"> {
  const list = params.problems.map((p) => `  - ${p}`).join("\n");
  const { schema, file, line, problems } = params;
  return new DevflowError(
    "ARTIFACT_INVALID",
    `${params.context}: not a valid ${schema}\n${list}\n${params.hint}`,
    {
      details: { schema, file, line, problems },
    },
  );
}

/** A file on disk is not JSON (or a JSONL line is not). */
export function artifactParseError(
  file: string,
  detail: string,
  line: number | null = null,
): DevflowError<"ARTIFACT_NOT_JSON"> {
  const where = line === null ? file : `${file} line ${line}`;
  return new DevflowError(
    "ARTIFACT_NOT_JSON",
    `${where} is not valid JSON (${detail}). It was probably edited by hand or cut short by a crash: fix or remove it.`,
    { details: { file, line } },
  );
}

/** Optimistic concurrency: the write was computed from an older revision than the one on disk. */
export function staleRevisionError(
  artifact: string,
  onDisk: number,
  expected: number,
): DevflowError<"STALE_REVISION"> {
  return new DevflowError(
    "STALE_REVISION",
    `${artifact} is at r${onDisk} on disk but this write was based on r${expected}: re-read ${artifact}, re-apply the change and write again`,
    { details: { artifact, onDisk, expected } },
  );
}

/** history/<name>.r<NNN>.json already holds different content: history is never rewritten. */
export function historyConflictError(file: string, current: string): DevflowError<"HISTORY_CONFLICT"> {
  return new DevflowError(
    "HISTORY_CONFLICT",
    `${file} already exists with different content than ${current}, which claims the same revision; history is never rewritten. Compare the two files and rename or remove the wrong one before writing again.`,
    { details: { file, current } },
  );
}

/** A generated JSON Schema under schemas/ is missing or unreadable. */
export function schemaFileError(file: string, detail: string): DevflowError<"SCHEMA_FILE_MISSING"> {
  return new DevflowError(
    "SCHEMA_FILE_MISSING",
    `${file} ${detail}: run \`npm run schemas\` to regenerate the JSON Schemas from src/artifacts/schemas`,
    { details: { file } },
  );
}

/** A task id, attempt id or relative path would leave the task dir or is not well-formed. */
export function artifactPathError(message: string): DevflowError<"ARTIFACT_PATH_INVALID"> {
  return new DevflowError("ARTIFACT_PATH_INVALID", message);
}
