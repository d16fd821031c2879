import { REVISIONED, type RevisionedName } from "../../src/index.js";
import { check, checkProblems } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/**
 * Monotonic revisions: for every top-level artifact, history/ holds exactly r1..r(N-1) next to
 * the current rN, each copy carries its own revision number, and updated_at never goes back.
 */
export async function gradeRevisions(a: RunArtifacts): Promise<Check[]> {
  const store = a.store;
  if (!store) return [check("revisions_monotonic", false, "no task directory")];
  const problems: string[] = [];
  for (const name of Object.keys(REVISIONED) as RevisionedName[]) {
    try {
      const current = await store.read(name);
      if (!current) continue;
      const history = await store.history(name);
      const expected = Array.from({ length: current.revision - 1 }, (_, i) => i + 1);
      if (history.join() !== expected.join()) {
        problems.push(
          `${name} is at r${current.revision} but history/ holds r${history.join(", r") || "(none)"}`,
        );
        continue;
      }
      let previous = "";
      for (const revision of [...history, current.revision]) {
        const value = await store.readRevision(name, revision);
        if (value?.revision !== revision)
          problems.push(`${name} history r${revision} carries revision ${value?.revision}`);
        const at = value && "updated_at" in value ? value.updated_at : "";
        if (at && previous && at < previous)
          problems.push(`${name} r${revision} is older than the revision before it`);
        previous = at || previous;
      }
    } catch (error) {
      problems.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return [checkProblems("revisions_monotonic", problems)];
}
