/**
 * Hostile review, session 23 (review23), on s23/setup23 merged onto main: a reused coder checkout's
 * stat-blind walk (entries-stat-cannot-see.ts) is one GNU `find`, started beside the new git dir's
 * `init`, whose NUL-separated output is parsed into paths that are then removed before the reset.
 * The old coder plants, before devflow's last snapshot (so git's stat check alone keeps them),
 * leftovers aimed at find's parsing and at the concurrency: tracked files hard-linked to a file
 * outside the checkout under a name starting with `-`, a name holding a newline, a name that is not
 * UTF-8, and at the bottom of a 120-deep tree; a setgid directory. Held: in the next task's checkout
 * no file shares an inode with the outside file (writing it cannot write outside), the outside file
 * is unchanged, and the tree is exactly the base (whether the checkout was reused or, for the
 * non-UTF-8 name, given up for a fresh one: fail closed).
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { retireCoderCheckout } from "../../../src/workspace/coder-checkout-reuse.js";
import { snapshotTree } from "../../../src/workspace/snapshot.js";
import { createTaskWorktree } from "../../../src/workspace/task-worktree.js";
import { coderCheckoutWithStore } from "../../support/coder-checkout.js";
import { commitFiles, git, makeRepo, removeDir, tempDir } from "../../support/test-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const DEEP = Array.from({ length: 120 }, () => "d").join("/");
const FILES: Record<string, string> = {
  "-dash.js": "dash\n",
  "new\nline/f.js": "newline\n",
  [`${DEEP}/deep.js`]: "deep\n",
  "g/plain.js": "plain\n",
  "keep.js": "keep\n",
};

/** Task A planted `plant` in its checkout before devflow's last snapshot; task B then starts. */
async function reuseAfter(plant: (worktree: string, outside: string) => void) {
  const root = makeRepo(FILES);
  dirs.push(root);
  const outside = tempDir("devflow-attack23-outside-");
  dirs.push(outside);
  writeFileSync(join(outside, "secret.txt"), "the user's file\n");
  const a = await coderCheckoutWithStore(root, "task-a");
  plant(a.worktree, join(outside, "secret.txt"));
  // Older than the index: git trusts their stat data without reading them.
  await new Promise((done) => setTimeout(done, 1100));
  await snapshotTree(a.worktree);
  const keepIno = statSync(join(a.worktree, "keep.js")).ino;
  retireCoderCheckout(root, "task-a", a.worktree, 1);
  commitFiles(root, { "c.js": "c\n" }, "base moves");
  const b = await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
  const reused = statSync(join(b.worktree, "keep.js")).ino === keepIno;
  return { b, outside: join(outside, "secret.txt"), reused };
}

/** A tracked file replaced by a hard link to `outside` (same content as the base, so the hash fits). */
function hardLinkTo(worktree: string, rel: string, outside: string): void {
  writeFileSync(outside, FILES[rel] as string);
  rmSync(join(worktree, rel));
  linkSync(outside, join(worktree, rel));
}

function expectBase(worktree: string, outside: string, before: string): void {
  const outsideIno = statSync(outside).ino;
  for (const rel of [...Object.keys(FILES), "c.js"]) {
    const st = lstatSync(join(worktree, rel));
    expect({ rel, file: st.isFile(), nlink: st.nlink, sameAsOutside: st.ino === outsideIno }).toEqual({
      rel,
      file: true,
      nlink: 1,
      sameAsOutside: false,
    });
  }
  expect(statSync(join(worktree, "g")).mode & 0o7000).toBe(0);
  expect(git(worktree, "status", "--porcelain", "--ignored", "--untracked-files=all").trim()).toBe("");
  expect(readFileSync(outside, "utf8")).toBe(before);
}

describe("the find walk of a reused checkout against planted leftovers (attack23, setup23)", () => {
  for (const rel of ["-dash.js", "new\nline/f.js", `${DEEP}/deep.js`]) {
    it(`a tracked file ${JSON.stringify(rel.slice(0, 20))} hard-linked outside does not survive the reuse`, async () => {
      const { b, outside, reused } = await reuseAfter((worktree, out) => {
        hardLinkTo(worktree, rel, out);
        chmodSync(join(worktree, "g"), 0o2755);
      });
      expect(reused).toBe(true); // caught by the walk itself, not by a fallback to a fresh checkout
      expectBase(b.worktree, outside, FILES[rel] as string);
      // Writing B's file writes B's file only.
      writeFileSync(join(b.worktree, rel), "B's edit\n");
      expect(readFileSync(outside, "utf8")).toBe(FILES[rel]);
    });
  }

  it("a leftover under a name that is not UTF-8 gives the reuse up or is removed, never kept", async () => {
    const { b, outside } = await reuseAfter((worktree, out) => {
      hardLinkTo(worktree, "keep.js", out);
      // Untracked and hard-linked too: clean would remove it, but find's parsing meets it first
      // (Node cannot pass raw non-UTF-8 bytes as a path; python can).
      execFileSync("python3", [
        "-c",
        "import os,sys; os.link(sys.argv[1], os.fsencode(sys.argv[2]) + b'/bad-\\xff\\xfe.js')",
        out,
        worktree,
      ]);
    });
    expectBase(b.worktree, outside, FILES["keep.js"] as string);
  });

  it("a hard link planted after the snapshot in a directory made unreadable does not survive", async () => {
    const { b, outside } = await reuseAfter((worktree, out) => {
      hardLinkTo(worktree, "g/plain.js", out);
      mkdirSync(join(worktree, "g", "locked"));
      chmodSync(join(worktree, "g", "locked"), 0o000);
    });
    expectBase(b.worktree, outside, FILES["g/plain.js"] as string);
  });
});
