import { readFile, stat } from "node:fs/promises";
import type { InsightReference } from "../../artifacts/schemas/index.js";
import { resolveInWorktree } from "../../tools/index.js";

export interface CheckedReferences {
  references: InsightReference[];
  unverified: (InsightReference & { problem: string })[];
}

/**
 * The model's references are claims: each one is kept only when the file exists inside the
 * repository and the line is within it. The rest are recorded as unverified, never shown as fact.
 */
export async function checkReferences(
  repoRoot: string,
  refs: InsightReference[],
): Promise<CheckedReferences> {
  const checked: CheckedReferences = { references: [], unverified: [] };
  const seen = new Set<string>();
  for (const ref of refs) {
    const key = `${ref.path}:${ref.line ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const verdict = await verify(repoRoot, ref);
    if (typeof verdict === "string") checked.unverified.push({ ...ref, problem: verdict });
    else checked.references.push(verdict);
  }
  return checked;
}

/** The reference with a repository-relative path, or what is wrong with it. */
async function verify(repoRoot: string, ref: InsightReference): Promise<InsightReference | string> {
  let file: { absolute: string; relative: string };
  try {
    file = await resolveInWorktree(repoRoot, ref.path);
  } catch {
    return "not a file inside the repository";
  }
  if (!(await stat(file.absolute)).isFile()) return "a directory, not a file";
  const located = { path: file.relative, line: ref.line };
  if (ref.line === null) return located;
  const text = await readFile(file.absolute, "utf8");
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return ref.line <= lines ? located : `line ${ref.line} is past the end of the file (${lines} lines)`;
}
