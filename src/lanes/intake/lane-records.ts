import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import slugify from "@sindresorhus/slugify";
import writeFileAtomic from "write-file-atomic";
import { parseArtifact, type SchemaValue } from "../../artifacts/validate.js";
import { ensureDevflowDir } from "../../workspace/index.js";

/** The intake lanes that leave a record of their own (iterate has its task dirs). */
export type RecordLane = "insight" | "idea";

const FILE = { insight: "insight_answer", idea: "idea_brief" } as const;
const SLUG_LENGTH = 40;

/** `<repo>/.devflow/<lane>/` */
export function laneRoot(repoRoot: string, lane: RecordLane): string {
  return join(repoRoot, ".devflow", lane);
}

/**
 * Claims a fresh record dir `<yyyymmdd-hhmmss>-<slug of the text>` and returns its id. mkdir is
 * the claim, so two records made in the same second from the same text get `-2`, `-3`, ….
 */
export function claimRecordId(repoRoot: string, lane: RecordLane, text: string, now = new Date()): string {
  ensureDevflowDir(repoRoot);
  const root = laneRoot(repoRoot, lane);
  mkdirSync(root, { recursive: true });
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const slug = slugify(text).slice(0, SLUG_LENGTH).replace(/-+$/, "") || lane;
  for (let n = 1; ; n++) {
    const id = `${stamp}-${slug}${n > 1 ? `-${n}` : ""}`;
    try {
      mkdirSync(join(root, id));
      return id;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** Validates (ajv, then zod) and writes the lane's artifact atomically; returns its absolute path. */
export async function writeRecord<L extends RecordLane>(
  repoRoot: string,
  lane: L,
  value: SchemaValue<(typeof FILE)[L]>,
): Promise<string> {
  const name = FILE[lane];
  const path = join(laneRoot(repoRoot, lane), value.id, `${name}.json`);
  const checked = parseArtifact(name, value, { file: path, action: "write" });
  await writeFileAtomic(path, `${JSON.stringify(checked, null, 2)}\n`);
  return path;
}

/** A lane's artifact by id, validated; null when there is no such record. */
export function readRecord<L extends RecordLane>(
  repoRoot: string,
  lane: L,
  id: string,
): SchemaValue<(typeof FILE)[L]> | null {
  const name = FILE[lane];
  const path = join(laneRoot(repoRoot, lane), id, `${name}.json`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  return parseArtifact(name, JSON.parse(text), { file: path, action: "read" });
}

/** Ids of a lane's records, oldest first (ids start with their creation time). */
export function listRecords(repoRoot: string, lane: RecordLane): string[] {
  try {
    return readdirSync(laneRoot(repoRoot, lane)).sort();
  } catch {
    return [];
  }
}
