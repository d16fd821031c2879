import { readFile, stat } from "node:fs/promises";
import type { InsightReference } from "../artifacts/schemas/index.js";
import { resolveInWorktree } from "../tools/index.js";

export interface CheckedReferences {
  references: InsightReference[];
  unverified: (InsightReference & { problem: string })[];
}

/**
 * The model's references are claims: each one is kept only when the file exists inside the
 * repository and the line is within it. The rest are recorded as unverified, never shown as fact.
 */
export async function checkReferences(repoRoot: string, refs: InsightReference[]): Promise<CheckedReferences> {
  const checked: CheckedReferences = { references: [], unverified: [] };
  const seen = new Set<string>();
  for (const ref of refs) {
    const key = `${ref.path}:${ref.line ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const problem = await referenceProblem(repoRoot, ref);
    if (problem === null) checked.references.push(ref);
    else checked.unverified.push({ ...ref, problem });
  }
  return checked;
}

async function referenceProblem(repoRoot: string, ref: InsightReference): Promise<string | null> {
  let absolute: string;
  try {
    absolute = (await resolveInWorktree(repoRoot, ref.path)).absolute;
  } catch {
    return "not a file inside the repository";
  }
  if (!(await stat(absolute)).isFile()) return "a directory, not a file";
  if (ref.line === null) return null;
  const lines = (await readFile(absolute, "utf8")).split("\n").length;
  return ref.line <= lines ? null : `line ${ref.line} is past the end of the file (${lines} lines)`;
}
