import { chmodSync, mkdirSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkoutState, git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import {
  changedFiles,
  changedFilesAndLinks,
  composeChanges,
  diffTrees,
  pathChanges,
  snapshotTree,
} from "./snapshot.js";
import { snapshotStoreOf } from "./snapshot-store.js";
import { createTaskWorktree } from "./task-worktree.js";

const snapshotStoreGitDir = (worktree: string): string | null => snapshotStoreOf(worktree)?.gitDir ?? null;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

async function taskWorktree(): Promise<string> {
  const root = makeRepo({
    ".gitignore": "dist/\n*.log\n",
    "README.md": "hello\n",
    "src/a.ts": "export const a = 1;\n",
    "src/old.ts": "export const old = 1;\n",
    "src/gone.ts": "export const gone = 1;\n",
  });
  dirs.push(root);
  return (await createTaskWorktree({ repoRoot: root, taskId: "snap" })).worktree;
}

/**
 * Changes that could fool a parser of diff output: a rename with edits (of src/long.ts, written
 * from `lines` before), a colon first, a newline, quotes and non-ASCII in names, a binary file, a
 * deletion and a mode change.
 */
function trickyChange(worktree: string, lines: string[]): void {
  rmSync(join(worktree, "src/long.ts"));
  writeFiles(worktree, {
    "src/moved.ts": `${lines.slice(1).join("\n")}\nexport const w = 1;\n`,
    ":colon first.ts": "c\n",
    "a\nnewline.txt": "n\n",
    'quo"te ü.md': "q\n",
    "bin.dat": "\u0000\u0001\u0002",
  });
  rmSync(join(worktree, "src/gone.ts"));
  git(worktree, "update-index", "--chmod=+x", "src/a.ts");
}

function treeFiles(worktree: string, tree: string): string[] {
  return git(worktree, "ls-tree", "-r", "--name-only", tree).trim().split("\n");
}

describe("snapshotTree", () => {
  it("includes untracked files, leaves ignored ones out and does not touch the index or HEAD", async () => {
    const worktree = await taskWorktree();
    writeFiles(worktree, { "src/new.ts": "new\n", "dist/out.js": "built\n", "debug.log": "log\n" });
    writeFiles(worktree, { "src/a.ts": "export const a = 2;\n" });
    git(worktree, "add", "src/a.ts");
    writeFiles(worktree, { "src/a.ts": "export const a = 3;\n" });
    const before = checkoutState(worktree);

    const tree = await snapshotTree(worktree);

    expect(treeFiles(worktree, tree)).toEqual([
      ".gitignore",
      "README.md",
      "src/a.ts",
      "src/gone.ts",
      "src/new.ts",
      "src/old.ts",
    ]);
    // The working-tree content wins over the staged one, as it would in a commit of everything.
    expect(git(worktree, "show", `${tree}:src/a.ts`)).toBe("export const a = 3;\n");
    expect(checkoutState(worktree)).toBe(before);
  });

  it("is stable: the same content gives the same tree", async () => {
    const worktree = await taskWorktree();
    expect(await snapshotTree(worktree)).toBe(git(worktree, "rev-parse", "HEAD^{tree}").trim());
    writeFiles(worktree, { "x.txt": "x\n" });
    expect(await snapshotTree(worktree)).toBe(await snapshotTree(worktree));
  });
});

describe("diffTrees", () => {
  it("lists added, modified, deleted and renamed files, including the coder's own commits", async () => {
    const worktree = await taskWorktree();
    const base = await snapshotTree(worktree);

    // The coder commits part of its work itself ...
    writeFiles(worktree, { "src/a.ts": "export const a = 2;\n" });
    git(worktree, "mv", "src/old.ts", "src/renamed.ts");
    git(worktree, "commit", "--quiet", "-am", "coder: edit a, rename old");
    // ... deletes a file and leaves a new one untracked, next to an ignored build output.
    rmSync(join(worktree, "src/gone.ts"));
    writeFiles(worktree, { "src/untracked.ts": "export const u = 1;\n", "dist/out.js": "built\n" });

    const after = await snapshotTree(worktree);
    const diff = await diffTrees(worktree, base, after);

    expect(diff.files).toEqual([
      "src/a.ts",
      "src/gone.ts",
      "src/old.ts",
      "src/renamed.ts",
      "src/untracked.ts",
    ]);
    expect(diff.patch).toContain("diff --git a/src/a.ts b/src/a.ts");
    expect(diff.patch).toContain("+export const a = 2;");
    expect(diff.patch).toContain("deleted file mode");
    expect(diff.patch).toContain("rename from src/old.ts");
    expect(diff.patch).toContain("+export const u = 1;");
    expect(diff.patch).not.toContain("dist/out.js");
  });

  it("returns nothing for identical trees", async () => {
    const worktree = await taskWorktree();
    const tree = await snapshotTree(worktree);
    expect(await diffTrees(worktree, tree, tree)).toEqual({ patch: "", files: [], changes: [] });
  });

  it("ignores a user's diff settings that would change the patch format", async () => {
    const worktree = await taskWorktree();
    git(worktree, "config", "diff.noprefix", "true");
    git(worktree, "config", "color.diff", "always");
    const base = await snapshotTree(worktree);
    writeFiles(worktree, { "README.md": "changed\n" });
    const { patch } = await diffTrees(worktree, base, await snapshotTree(worktree));
    expect(patch).toContain("--- a/README.md\n+++ b/README.md");
    expect(patch).not.toContain("\u001b[");
  });

  /*
   * diffTrees reads the names and the patch from one `git diff --raw -z -p` (issue 11; it was two
   * processes). Pins that the split gives exactly what the two separate commands give, for names
   * that could fool a parser (a colon first, spaces, a newline, quotes, non-ASCII), a binary file,
   * a rename with edits and a mode change: a parser that took a path for a record, dropped a
   * rename's old path or left the separator in the patch fails here.
   */
  it("one process gives the patch and the names of the separate diff commands", async () => {
    const worktree = await taskWorktree();
    const lines = Array.from({ length: 20 }, (_, i) => `export const v${i} = ${i};`);
    writeFiles(worktree, { "src/long.ts": `${lines.join("\n")}\n` });
    const base = await snapshotTree(worktree);
    trickyChange(worktree, lines);
    const after = await snapshotTree(worktree);
    const patchAlone = git(
      worktree,
      "diff",
      "--no-ext-diff",
      "--no-textconv",
      "--no-color",
      "--binary",
      "--find-renames",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      base,
      after,
      "--",
    );

    const diff = await diffTrees(worktree, base, after);

    expect(diff.patch).toBe(patchAlone);
    expect(diff.files).toEqual(await changedFiles(worktree, base, after));
    expect(diff.files).toContain(":colon first.ts");
    expect(diff.patch).toContain("rename from src/long.ts");
    expect(diff.files).toContain("src/long.ts");
    expect(diff.files).toContain("src/moved.ts");
    expect(diff.files).toContain("a\nnewline.txt");
  });

  /*
   * A repair attempt diffed twice in two git processes (issue 11, ADR 0050 session 25): the code
   * node diffs the previous attempt's tree, verify then the seam tree, against the same new tree.
   * Fix: one `git diff-tree --stdin` gives both (`alsoFrom`), the second kept for verify. Pins that
   * both answers are byte for byte `git diff`'s on names that could fool the split (a colon first,
   * a newline, quotes, non-ASCII), a binary file, a rename with edits, a mode change and a deletion,
   * and that the second is then answered without git.
   */
  it("one diff-tree process gives a repair attempt's two diffs, each as diffTrees gives it alone", async () => {
    const worktree = await taskWorktree();
    const lines = Array.from({ length: 20 }, (_, i) => `export const v${i} = ${i};`);
    writeFiles(worktree, { "src/long.ts": `${lines.join("\n")}\n` });
    const seam = await snapshotTree(worktree);
    writeFiles(worktree, { "README.md": "first attempt\n", "bin.dat": "\u0000\u0001" });
    const previous = await snapshotTree(worktree);
    trickyChange(worktree, lines);
    const after = await snapshotTree(worktree);
    const alone = await diffTrees(worktree, previous, after);
    const sinceSeam = await diffTrees(worktree, seam, after);
    await diffTrees(worktree, seam, previous); // another pair in the one-entry memo

    const both = await diffTrees(worktree, previous, after, { alsoFrom: seam });
    const gitDir = snapshotStoreGitDir(worktree) ?? git(worktree, "rev-parse", "--absolute-git-dir").trim();
    rmSync(join(gitDir, "objects"), { recursive: true, force: true });
    const kept = await diffTrees(worktree, seam, after);

    expect(both.patch).toBe(alone.patch);
    expect(both.files).toEqual(alone.files);
    expect(kept.patch).toBe(sinceSeam.patch);
    expect(kept.files).toEqual(sinceSeam.files);
    expect(kept.files).toContain("a\nnewline.txt");
    expect(kept.patch).toContain("rename from src/long.ts");
    expect(both.patch).toContain("GIT binary patch");
  });

  /*
   * Diff computed twice (issue 11): the code node diffs a first attempt from the seam tree and
   * verify asks for the same pair again. Fix: the last diff of two object ids is kept. Pins that
   * the same pair is answered without git (the store's objects are gone, so git would fail) and
   * that another pair is not.
   */
  it("answers the same pair of object ids again without running git", async () => {
    const worktree = await taskWorktree();
    const base = await snapshotTree(worktree);
    writeFiles(worktree, { "README.md": "changed\n" });
    const after = await snapshotTree(worktree);
    const first = await diffTrees(worktree, base, after);
    const gitDir = snapshotStoreGitDir(worktree) ?? git(worktree, "rev-parse", "--absolute-git-dir").trim();
    rmSync(join(gitDir, "objects"), { recursive: true, force: true });
    expect(await diffTrees(worktree, base, after)).toBe(first);
    await expect(diffTrees(worktree, after, base)).rejects.toThrow();
  });

  it("refuses an option-looking tree argument", async () => {
    const worktree = await taskWorktree();
    await expect(diffTrees(worktree, "--output=/tmp/x", "HEAD")).rejects.toThrow("invalid tree");
  });

  /*
   * issue 11 (per-attempt cost): the verify node listed the changed names (`diff --name-only`) and
   * then ran `ls-tree` on them to find the symlinks among them. Fix: one `diff --raw -z --no-renames`
   * gives both (the new mode says "symlink"). Pins that the answer is the two commands' answer on the
   * inputs that could tell them apart: a new link, a file turned into a link, a link turned into a
   * file, a deleted link, a moved link, a retargeted link, and names with a newline, a colon first
   * and a space. A parser that read the old mode, named a deleted link or took a path for a record
   * fails here.
   */
  it("changedFilesAndLinks gives the names of diff --name-only and the links ls-tree finds among them", async () => {
    const worktree = await taskWorktree();
    symlinkSync("README.md", join(worktree, "link-becomes-file"));
    symlinkSync("README.md", join(worktree, "link-gone"));
    symlinkSync("README.md", join(worktree, "link-moves"));
    symlinkSync("README.md", join(worktree, "link-retargeted"));
    const base = await snapshotTree(worktree);
    symlinkSync("../../outside", join(worktree, "new-link"));
    rmSync(join(worktree, "src/old.ts"));
    symlinkSync("/etc/hostname", join(worktree, "src/old.ts"));
    unlinkSync(join(worktree, "link-becomes-file"));
    writeFiles(worktree, { "link-becomes-file": "now a file\n", ":colon first": "c\n" });
    unlinkSync(join(worktree, "link-gone"));
    unlinkSync(join(worktree, "link-moves"));
    symlinkSync("README.md", join(worktree, "moved link"));
    unlinkSync(join(worktree, "link-retargeted"));
    symlinkSync("src/a.ts", join(worktree, "link-retargeted"));
    symlinkSync("..", join(worktree, "a\nnewline link"));
    const after = await snapshotTree(worktree);

    const nameOnly = git(worktree, "diff", "--name-only", "--no-renames", "-z", base, after, "--")
      .split("\0")
      .filter((name) => name !== "")
      .sort();
    const listed = git(
      worktree,
      "ls-tree",
      "-r",
      "-z",
      "--full-tree",
      after,
      "--",
      ...nameOnly.map((p) => `:(top,literal)${p}`),
    )
      .split("\0")
      .filter((entry) => entry.startsWith("120000 "))
      .map((entry) => entry.slice(entry.indexOf("\t") + 1))
      .sort();

    const answer = await changedFilesAndLinks(worktree, base, after);
    expect(answer.files).toEqual(nameOnly);
    expect(answer.links).toEqual(listed);
    expect(answer.links).toEqual([
      "a\nnewline link",
      "link-retargeted",
      "moved link",
      "new-link",
      "src/old.ts",
    ]);
    expect(answer.files).toEqual(
      expect.arrayContaining(["link-becomes-file", "link-gone", "link-moves", ":colon first"]),
    );
    expect(await changedFiles(worktree, base, after)).toEqual(nameOnly);
  });
});

describe("composeChanges (issue 11: verify's change since base without a git process)", () => {
  /**
   * The composition must equal git's own answer on every input, or the scope check, the seam's
   * opened-files check and the symlink check would judge the wrong paths. Seeded random changes in
   * two steps (base → seam → attempt) from a small pool of contents, so that edits put back to the
   * base's content, renames git detects (same content), mode flips and file ↔ link swaps all occur;
   * the attempt's records come from the batched `diff-tree --stdin` (a repair attempt's path) or
   * from `git diff`, as in the lane.
   */
  it("equals `git diff --no-renames` from base to attempt on random two-step changes", async () => {
    const worktree = await taskWorktree();
    let seed = 20261205;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const contents = ["one\n", "two\n", "three\nthree\nthree\n"];
    const names = ["a.txt", "b.txt", "src/c.txt", "src/d/e.txt", "f g.txt", "x\ny.txt", "link"];
    const paths = new Set<string>();
    const change = (steps: number): void => {
      for (let i = 0; i < steps; i++) {
        const name = names[random(names.length)] as string;
        const path = join(worktree, name);
        const present = paths.has(name);
        const op = random(5);
        if (present) rmSync(path, { force: true });
        if (present && op === 0) {
          paths.delete(name); // deleted
          continue;
        }
        if (present && op === 1) {
          // moved (maybe edited): git sees a rename when the content stays
          const to = names[random(names.length)] as string;
          if (paths.has(to)) rmSync(join(worktree, to), { force: true });
          writeFiles(worktree, { [to]: contents[random(contents.length)] as string });
          paths.delete(name);
          paths.add(to);
          continue;
        }
        mkdirSync(dirname(path), { recursive: true });
        if (op === 2) symlinkSync(contents[random(2)]?.trim() as string, path);
        else writeFiles(worktree, { [name]: contents[random(contents.length)] as string });
        if (op === 3) chmodSync(path, 0o755);
        paths.add(name);
      }
    };
    let compared = 0;
    let base = await snapshotTree(worktree);
    for (let round = 0; round < 12; round++) {
      change(1 + random(4));
      const seam = await snapshotTree(worktree);
      const seamSinceBase = await pathChanges(worktree, base, seam);
      change(1 + random(5));
      const previous = await snapshotTree(worktree);
      change(1 + random(5));
      const current = await snapshotTree(worktree);
      // Odd rounds: a repair attempt's batched diff-tree, whose second pair verify then reads.
      if (round % 2 === 1) await diffTrees(worktree, previous, current, { alsoFrom: seam });
      const attempt = await diffTrees(worktree, seam, current);
      const composed = composeChanges(seamSinceBase, attempt.changes);
      const truth = await changedFilesAndLinks(worktree, base, current);
      expect(composed, `round ${round}`).toEqual(truth);
      compared += truth.files.length;
      base = current;
    }
    // The rounds changed something to compare (a generator that did nothing would pass vacuously).
    expect(compared).toBeGreaterThan(12);
  });

  it("an edit put back cancels out; a rename is a deletion and an addition; a link is named by its new mode", () => {
    const id = (c: string): string => c.repeat(40);
    const zero = id("0");
    const composed = composeChanges(
      [
        { path: "reverted", oldMode: "100644", oldId: id("a"), newMode: "100644", newId: id("b") },
        { path: "flipped", oldMode: "100644", oldId: id("a"), newMode: "100755", newId: id("a") },
      ],
      [
        { path: "reverted", oldMode: "100644", oldId: id("b"), newMode: "100644", newId: id("a") },
        { path: "old", oldMode: "100644", oldId: id("c"), newMode: "000000", newId: zero },
        { path: "new", oldMode: "000000", oldId: zero, newMode: "120000", newId: id("c") },
      ],
    );
    expect(composed).toEqual({ files: ["flipped", "new", "old"], links: ["new"] });
  });
});
