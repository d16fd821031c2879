import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { cacheDir, isTaskId, parseClaimedName, queueDir } from "../home/daemon-paths.js";

/**
 * What a read-only ticket's run made under `cache/` and removes after it (ADR 0057): the shallow
 * clone `cache/reads/<id>/` and a question's empty folder `cache/questions/<id>/`. A daemon that
 * crashed mid-run left them; at its next start they are removed, except a ticket's that is claimed
 * (`queue/processing/<id>@<token>.md`: running here or in another daemon on the same root, whose
 * run owns them). Returns the paths removed.
 */
export async function sweepReadOnlyLeftovers(root: string): Promise<string[]> {
  const claimed = new Set(
    (await readdir(queueDir(root, "processing")).catch(() => [] as string[]))
      .map((name) => parseClaimedName(name)?.id)
      .filter((id): id is string => id !== undefined),
  );
  const removed: string[] = [];
  for (const kind of ["reads", "questions"]) {
    const dir = join(cacheDir(root), kind);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!isTaskId(name) || claimed.has(name)) continue;
      await rm(join(dir, name), { recursive: true, force: true });
      removed.push(join(dir, name));
    }
  }
  return removed;
}
