/**
 * Regression (CI of stop 49, `tree-with-base-files.test.ts` flaked: the snapshot held `bug` where
 * the worktree said `fix`).
 *
 * Cause: `snapshotTree` without a pinned store starts from a copy of the worktree's index, and the
 * copy got the time it was made. git trusts an entry's stat data unless the entry is "racy" (its
 * file changed in the same second the index was written, judged by the index file's own time). A
 * file rewritten with the same size in the second its index entry was written, and snapshotted in
 * a later second, looked clean to git through the new copy, so the snapshot kept the old content.
 * Fix: the copy keeps the real index's time (a little earlier), so the same entries stay racy and
 * git compares their content.
 */
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { git, makeRepo, removeDir } from "../../test/support/test-repo.js";
import { snapshotTree } from "./snapshot.js";

let repo = "";
afterEach(() => removeDir(repo));

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const second = (ms: number) => Math.floor(ms / 1000);

it("a file rewritten with the same size in the second its index entry was written is in the snapshot", async () => {
  // The race needs the commit and the edit in one second and the snapshot in the next: start at
  // the top of a second, and try again (at most 5 times) if the machine was too slow for that.
  for (let tries = 0; ; tries += 1) {
    await sleep(1000 - (Date.now() % 1000) + 5);
    removeDir(repo);
    repo = makeRepo({ "src/a.js": "bug\n" });
    const committed = statSync(join(repo, "src/a.js")).mtimeMs;
    writeFileSync(join(repo, "src/a.js"), "fix\n");
    const edited = statSync(join(repo, "src/a.js"));
    const index = statSync(join(repo, ".git/index")).mtimeMs;
    const oneSecond = second(committed) === second(edited.ctimeMs) && second(index) === second(committed);
    if (oneSecond || tries === 4) {
      expect(oneSecond, "the commit and the edit fell in one second").toBe(true);
      break;
    }
  }
  await sleep(1000 - (Date.now() % 1000) + 5);

  const snapshot = await snapshotTree(repo);
  expect(git(repo, "show", `${snapshot}:src/a.js`)).toBe("fix\n");
});
