/**
 * symlink-leaves-the-repo-through-a-non-utf8-name (session-25 review of ADR 0024's symlink check).
 * A change holds a folder `s\xfe/`, a link `s\xff -> d1/d2` and a link `L -> s\xfe/../../outside.js`.
 * The kernel resolves L through the folder `s\xfe`: one level above the repository (the run's
 * /tmp, another checkout, the user's files). devflow reads the tree's names from git as UTF-8 text,
 * where both `s\xfe` and `s\xff` become `s\uFFFD`: one map entry, the link's, so the check walked
 * L through `d1/d2`, stayed inside, and passed it.
 *
 * Fix: a name or link target that is not valid UTF-8 (U+FFFD in git's decoded text) cannot be
 * resolved by name: a link whose path, target or any component on its way holds one is named as
 * leaving (fail closed; no real project names files with U+FFFD).
 *
 *     npx vitest run test/adversarial/review/symlink-through-a-non-utf8-name-attack25.test.ts
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { changedFilesAndLinks, snapshotTree } from "../../../src/workspace/snapshot.js";
import { createTaskWorktree } from "../../../src/workspace/task-worktree.js";
import { openVerifyCheckout, symlinksLeavingRepo } from "../../../src/workspace/verify-checkout.js";
import { makeRepo, removeDir } from "../../support/test-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const named = (prefix: string, byte: number, rest = ""): Buffer =>
  Buffer.concat([Buffer.from(prefix), Buffer.from([byte]), Buffer.from(rest)]);

/** A task's coder checkout with its verification checkout open, as the lane has them. */
async function taskCheckout(taskId: string): Promise<{ w: string; baseCommit: string }> {
  const root = makeRepo({ "README.md": "hello\n" });
  dirs.push(root);
  const ws = await createTaskWorktree({ repoRoot: root, taskId });
  await openVerifyCheckout({ repoRoot: root, taskId, baseCommit: ws.baseCommit, coderCheckout: ws.worktree });
  return { w: ws.worktree, baseCommit: ws.baseCommit };
}

describe("a symlink that leaves the repository through a name that is not UTF-8 (ADR 0024)", () => {
  it("is named: two names that decode alike cannot hide the folder the kernel walks through", async () => {
    const { w, baseCommit } = await taskCheckout("t25");
    mkdirSync(join(w, "d1", "d2"), { recursive: true });
    writeFileSync(join(w, "d1", "d2", ".keep"), "");
    mkdirSync(named(`${w}/s`, 0xfe));
    writeFileSync(named(`${w}/s`, 0xfe, "/.keep"), "");
    symlinkSync("d1/d2", named(`${w}/s`, 0xff));
    symlinkSync(named("s", 0xfe, "/../../outside.js"), join(w, "L"));
    // The premise: the kernel resolves L to the folder above the checkout.
    writeFileSync(join(dirname(w), "outside.js"), "outside\n");
    expect(readFileSync(join(w, "L"), "utf8")).toBe("outside\n");
    const tree = await snapshotTree(w);
    const changed = await changedFilesAndLinks(w, baseCommit, tree);
    expect(changed.links).toContain("L");
    const leaving = await symlinksLeavingRepo(w, tree, changed.files, changed.links);
    expect(leaving.some((finding) => finding.startsWith("L -> "))).toBe(true);
    // Listed again (no links passed in): the same answer.
    expect((await symlinksLeavingRepo(w, tree, changed.files)).some((f) => f.startsWith("L -> "))).toBe(true);
  });

  it("a plain link inside the repository next to such names still passes", async () => {
    const { w, baseCommit } = await taskCheckout("t25b");
    writeFileSync(named(`${w}/f`, 0xff), "");
    symlinkSync("README.md", join(w, "readme-link"));
    const tree = await snapshotTree(w);
    const changed = await changedFilesAndLinks(w, baseCommit, tree);
    expect(await symlinksLeavingRepo(w, tree, changed.files, changed.links)).toEqual([]);
  });
});
