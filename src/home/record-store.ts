import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArtifact, type SchemaValue } from "../artifacts/validate.js";
import { writeFileDurably } from "../util/durable-write.js";
import { redactDeep } from "../util/redact.js";
import { RECORD_FILE, type RecordLane, recordRoot } from "./paths.js";
import { assertTaskId } from "./task-id.js";

/** `<repo>/.devflow/<lane>/<id>/<file>.json` */
const recordPath = (repoRoot: string, lane: RecordLane, id: string): string =>
  join(recordRoot(repoRoot, lane), assertTaskId(id), `${RECORD_FILE[lane]}.json`);

/**
 * Validates (ajv, then zod) and writes a record lane's artifact atomically into the dir its id
 * claimed (mint-id.ts `claimRecordId`); returns its absolute path.
 */
export async function writeRecord<L extends RecordLane>(
  repoRoot: string,
  lane: L,
  value: SchemaValue<(typeof RECORD_FILE)[L]>,
): Promise<string> {
  const path = recordPath(repoRoot, lane, value.id);
  // An insight answer or idea brief is model text: it may repeat a secret (ADR 0030).
  const checked = parseArtifact(RECORD_FILE[lane], redactDeep(value), { file: path, action: "write" });
  await writeFileDurably(path, `${JSON.stringify(checked, null, 2)}\n`);
  return path;
}

/** A lane's artifact by id, validated; null when there is no such record (or the id is not one). */
export function readRecord<L extends RecordLane>(
  repoRoot: string,
  lane: L,
  id: string,
): SchemaValue<(typeof RECORD_FILE)[L]> | null {
  let path: string;
  let text: string;
  try {
    path = recordPath(repoRoot, lane, id);
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  return parseArtifact(RECORD_FILE[lane], JSON.parse(text), { file: path, action: "read" });
}

/**
 * `<repo>/.devflow/<lane>/<id>/history/<file>.r<revision>.json`: an earlier revision of a record
 * (an idea brief a compose re-plan revised, ADR 0055).
 */
export const recordHistoryPath = (repoRoot: string, lane: RecordLane, id: string, revision: number): string =>
  join(
    recordRoot(repoRoot, lane),
    assertTaskId(id),
    "history",
    `${RECORD_FILE[lane]}.r${String(revision).padStart(3, "0")}.json`,
  );

/**
 * Keeps the record as it stands now as revision `revision` in its history/ before it is replaced,
 * validated. Once only: a repeat after a crash (the record may already be the next revision) keeps
 * the first copy. Returns the history file's path.
 */
export async function keepRecordHistory(
  repoRoot: string,
  lane: RecordLane,
  id: string,
  revision: number,
): Promise<string> {
  const target = recordHistoryPath(repoRoot, lane, id, revision);
  if (existsSync(target)) return target;
  const current = readRecord(repoRoot, lane, id);
  if (!current) throw new Error(`no ${RECORD_FILE[lane]} ${id} to keep in history`);
  mkdirSync(dirname(target), { recursive: true });
  await writeFileDurably(target, `${JSON.stringify(current, null, 2)}\n`);
  return target;
}

/**
 * `<repo>/.devflow/<lane>/<id>/history/<file>.proposed.json`: the record as its model proposed it,
 * kept when the user edits it before approving (an idea brief edited at `devflow plan`'s prompt,
 * ADR 0060). The edited record is the approved one (revision 1); this keeps what the model said.
 * Once only: the first proposal is the one kept across several edits.
 */
export async function keepProposedRecord(repoRoot: string, lane: RecordLane, id: string): Promise<string> {
  const target = join(
    recordRoot(repoRoot, lane),
    assertTaskId(id),
    "history",
    `${RECORD_FILE[lane]}.proposed.json`,
  );
  if (existsSync(target)) return target;
  const current = readRecord(repoRoot, lane, id);
  if (!current) throw new Error(`no ${RECORD_FILE[lane]} ${id} to keep as proposed`);
  mkdirSync(dirname(target), { recursive: true });
  await writeFileDurably(target, `${JSON.stringify(current, null, 2)}\n`);
  return target;
}

/**
 * `<repo>/.devflow/<lane>/<id>/history/<file>.r<revision>.proposed.json`: a revision as its model
 * proposed it, kept when the user edited it before approving (a compose re-plan's revised brief,
 * ADR 0060 §5); the edited one is revision `revision` itself. Validated like the record; once only.
 */
export async function keepProposedRevision<L extends RecordLane>(
  repoRoot: string,
  lane: L,
  value: SchemaValue<(typeof RECORD_FILE)[L]>,
  revision: number,
): Promise<string> {
  const target = recordHistoryPath(repoRoot, lane, value.id, revision).replace(/\.json$/, ".proposed.json");
  if (existsSync(target)) return target;
  const checked = parseArtifact(RECORD_FILE[lane], redactDeep(value), { file: target, action: "write" });
  mkdirSync(dirname(target), { recursive: true });
  await writeFileDurably(target, `${JSON.stringify(checked, null, 2)}\n`);
  return target;
}
