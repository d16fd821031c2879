import { readFileSync } from "node:fs";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { parseArtifact, type SchemaValue } from "../artifacts/validate.js";
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
  await writeFileAtomic(path, `${JSON.stringify(checked, null, 2)}\n`);
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
