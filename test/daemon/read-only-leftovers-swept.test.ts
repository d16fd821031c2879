/**
 * Regression (issue 12): a daemon that crashed during a read-only ticket's run left its shallow
 * clone `cache/reads/<id>/` (and a question's `cache/questions/<id>/`) for good: only the run
 * itself removed them, in its `finally`. Fix: the worker sweeps them at start (read-leftovers.ts),
 * except those of a ticket that is claimed (its run, here or in another daemon, owns them).
 * A real `devflow daemon` process on a real data root, real leftover directories, a real claim.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cacheDir } from "../../src/home/daemon-paths.js";
import { sandboxPerTest, startDaemon, waitFor, writeWorkerConfig } from "../support/daemon-harness.js";

const box = sandboxPerTest();

function leftover(kind: "reads" | "questions", id: string): string {
  const dir = join(cacheDir(box.root), kind, id);
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, "README.md"), "a clone a crash left\n");
  return dir;
}

describe("read-only leftovers at daemon start", () => {
  it("removes cache/reads/<id> and cache/questions/<id> of tickets not running, keeps a claimed ticket's", async () => {
    writeWorkerConfig(box, { maxConcurrent: 1 });
    const queue = box.queue();
    // A ticket claimed (by this test process, alive, heartbeat fresh): its clone is its run's.
    const path = box.ticket("t.md", `repo: ${JSON.stringify(box.repo("r"))}`, "Do it.\n");
    const submitted = await queue.submit(path, readFileSync(path));
    expect(submitted.findings).toEqual([]);
    const claim = await queue.claim();
    expect(claim?.id).toBe(submitted.id);
    const claimedClone = leftover("reads", submitted.id);
    const crashedClone = leftover("reads", "t-crashed-read");
    const crashedQuestion = leftover("questions", "t-crashed-question");

    const daemon = startDaemon(box);
    try {
      await waitFor(
        "the leftovers to go",
        () => !existsSync(crashedClone) && !existsSync(crashedQuestion),
        60_000,
      );
      expect(existsSync(claimedClone)).toBe(true);
      expect(daemon.stderr()).toContain(`removed ${crashedClone}, left by a read-only ticket's run`);
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exit;
    }
  }, 120_000);
});
