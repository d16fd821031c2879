/**
 * Hostile review (session 18, review18) of coder checkout reuse (ADR 0050 fourth slice): an old
 * coder plants an untracked `.gitattributes` in its checkout after devflow's last snapshot. When the
 * next task claims the checkout, `read-tree -u --reset` writes every file that differs from the
 * base (or whose ctime the coder moved), and git reads checkout attributes from the work tree when
 * the index has none: `eol=crlf` / `ident` would shape the bytes of the next task's starting tree;
 * the clean that follows removes the planted file.
 *
 * DEFENDED, by one barrier only: resetReused's final `status --porcelain --ignored` sees the
 * converted files as modified, and the claimed checkout is removed (a fresh checkout is made).
 * Without that check (mutation: its throw commented out) task-b starts with `a.js` in CRLF. The
 * test takes either outcome the code may give (refused, or reused with the base's exact bytes).
 *
 *     VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/reuse-attributes-attack18.test.ts
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { retireCoderCheckout, reuseIdleCoderCheckout } from "../../../src/workspace/coder-checkout-reuse.js";
import { snapshotTree } from "../../../src/workspace/snapshot.js";
import { taskWorktreePath } from "../../../src/workspace/task-worktree.js";
import { userObjectDir } from "../../../src/workspace/verify-checkout.js";
import { coderCheckoutWithStore } from "../../support/coder-checkout.js";
import { commitFiles, git, makeRepo, removeDir } from "../../support/test-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

// Many files: read-tree writes them over more than one timestamp tick, so the first ones are not
// "racily clean" (git would compare their content) when the index is written after them.
const MANY = 3;
const FILES: Record<string, string> = {
  "a.js": "export const a = 1;\n",
  "src/d.js": "// $Id$\nexport const d = 4;\n",
  ...Object.fromEntries(Array.from({ length: MANY }, (_, i) => [`m/f${i}.txt`, `line ${i}\nmore\n`])),
};

describe("review18: coder checkout reuse and planted attributes", () => {
  it("an untracked .gitattributes the old coder left never shapes the bytes of the next task's starting tree", async () => {
    const root = makeRepo(FILES);
    dirs.push(root);
    const a = await coderCheckoutWithStore(root, "task-a");
    writeFileSync(join(a.worktree, "a.js"), "export const a = 'A';\n");
    await new Promise((done) => setTimeout(done, 1100));
    await snapshotTree(a.worktree);
    // After the last snapshot: the planted attributes, and src/d.js's ctime moved (so it is rewritten).
    writeFileSync(join(a.worktree, ".gitattributes"), "* text eol=crlf ident\n");
    chmodSync(join(a.worktree, "src", "d.js"), 0o644);
    for (let i = 0; i < MANY; i++) chmodSync(join(a.worktree, "m", `f${i}.txt`), 0o644);
    expect(retireCoderCheckout(root, "task-a", a.worktree, 1)).toBe("kept_idle");
    commitFiles(root, { "a.js": "export const a = 'base2';\n" }, "base2");
    const base = git(root, "rev-parse", "HEAD").trim();
    const worktree = taskWorktreePath(root, "task-b");
    const reused = await reuseIdleCoderCheckout({
      repoRoot: root,
      worktree,
      branch: "devflow/task-b",
      baseCommit: base,
      userObjects: await userObjectDir(root),
    });
    if (reused === null) return; // refused (fail closed): the checkout is removed, nothing of it is used
    for (const path of ["a.js", "src/d.js", "m/f0.txt", `m/f${MANY - 1}.txt`])
      expect(JSON.stringify(readFileSync(join(worktree, path), "utf8")), path).toBe(
        JSON.stringify(git(root, "show", `HEAD:${path}`)),
      );
  });
});
