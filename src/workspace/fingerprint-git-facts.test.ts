/**
 * The user-repository fingerprint reads its git facts in fewer processes (issue 11, ADR 0050 third
 * slice): `rev-parse --git-common-dir -q --verify HEAD^{commit}` for the common dir and HEAD's
 * commit, and one `ls-files -z -s -v --cached --others --exclude-standard` for the tracked and
 * untracked names and the index entries. A fingerprint is compared with one taken by the same code,
 * but a parser mistake would blind it (a name lost is a file whose change is not seen), so each
 * answer is pinned to the separate commands it replaced, on the inputs that could tell them apart:
 * names with a newline, a tab, a leading `? `, a name that looks like an index entry, non-ASCII;
 * skip-worktree, assume-unchanged, intent-to-add, conflict stages and a gitlink; HEAD born,
 * unborn, detached, at a tree, in a linked worktree; and no repository at all.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, tempDir, writeFiles } from "../../test/support/test-repo.js";
import {
  commonDirAndHeadCommit,
  splitIndexListing,
  statusAndHeadRef,
  trackedUntrackedAndIndex,
} from "./fingerprint-git-facts.js";
import { runGit } from "./git.js";

const READ_ONLY = { env: { GIT_OPTIONAL_LOCKS: "0" } };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});
const track = (dir: string): string => {
  dirs.push(dir);
  return dir;
};

/** What the fingerprint read before, one git process per question. */
async function separately(root: string) {
  const run = (args: string[]) => runGit(root, args, READ_ONLY);
  const commonDir = (await run(["rev-parse", "--git-common-dir"])).trim();
  const commit = (await run(["rev-parse", "-q", "--verify", "HEAD^{commit}"]).catch(() => "")).trim() || null;
  const names = (await run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"]))
    .split("\0")
    .filter((n) => n !== "");
  const indexEntries = await run(["ls-files", "-s", "-v", "-z"]);
  return { commonDir, commit, names, indexEntries };
}

async function together(root: string) {
  const head = await commonDirAndHeadCommit(root, READ_ONLY);
  const listing = await trackedUntrackedAndIndex(root, READ_ONLY);
  return { ...head, ...listing };
}

/** A repository whose index and work tree hold every kind of entry the listing can show. */
function awkwardRepo(): string {
  const root = track(
    makeRepo({ "README.md": "hello\n", "conflict.txt": "base\n", ".gitignore": "ignored*\nbuild/\n" }),
  );
  git(root, "checkout", "--quiet", "-b", "side");
  writeFiles(root, { "conflict.txt": "side\n" });
  git(root, "commit", "--quiet", "-am", "side");
  git(root, "checkout", "--quiet", "main");
  writeFiles(root, { "conflict.txt": "main\n" });
  git(root, "commit", "--quiet", "-am", "main");
  try {
    git(root, "merge", "--quiet", "side");
  } catch {
    // the conflict is the point: stages 1, 2 and 3 of conflict.txt in the index
  }
  const names = {
    "new\nline.txt": "n\n",
    "tab\there.txt": "t\n",
    "? looks untracked.txt": "q\n",
    "H 100644 0000000000000000000000000000000000000000 0\tfake.txt": "f\n",
    "ünïcödé.txt": "u\n",
    "sp ace/inner.txt": "s\n",
    "skipped.txt": "s\n",
    "assumed.txt": "a\n",
  };
  writeFiles(root, names);
  git(root, "add", "--", ...Object.keys(names));
  git(root, "update-index", "--skip-worktree", "skipped.txt");
  git(root, "update-index", "--assume-unchanged", "assumed.txt");
  writeFiles(root, { "intent.txt": "i\n" });
  git(root, "add", "-N", "intent.txt");
  git(root, "update-index", "--add", "--cacheinfo", `160000,${git(root, "rev-parse", "HEAD").trim()},sub`);
  // Untracked, not ignored: the same awkward names on the other side.
  writeFiles(root, {
    "? untracked too.txt": "u\n",
    "H 100644 1111111111111111111111111111111111111111 0\tu.txt": "u\n",
    "deep/er/untracked.txt": "u\n",
    "un\ntracked\tname.txt": "u\n",
  });
  // Ignored: in neither list.
  writeFiles(root, { "ignored.log": "i\n", "build/out.js": "b\n" });
  return root;
}

describe("fingerprint git facts read together answer as the separate commands did", () => {
  it("fingerprint-reads-names-and-index-in-one-process: every name and the exact index bytes", async () => {
    const root = awkwardRepo();
    const old = await separately(root);
    const now = await together(root);
    expect(now.names).toEqual(old.names);
    expect(now.indexEntries).toBe(old.indexEntries);
    // The inputs really hold what the test is about (a listing that lost them would still agree).
    expect(old.names).toEqual(
      expect.arrayContaining(["new\nline.txt", "? untracked too.txt", "un\ntracked\tname.txt", "sub"]),
    );
    expect(old.indexEntries).toMatch(/(^|\0)S [^\0]*\tskipped\.txt\0/);
    expect(old.indexEntries).toMatch(/(^|\0)h [^\0]*\tassumed\.txt\0/);
    expect(old.indexEntries.match(/\tconflict\.txt\0/g)).toHaveLength(3);
    expect(old.names).not.toContain("ignored.log");
  });

  it("fingerprint-reads-common-dir-and-head-in-one-process: born, detached, at a tree, unborn, linked worktree", async () => {
    const root = track(makeRepo({ "README.md": "hello\n" }));
    const agree = async (dir: string) => {
      const old = await separately(dir);
      const now = await commonDirAndHeadCommit(dir, READ_ONLY);
      expect(now).toEqual({ commonDir: old.commonDir, commit: old.commit });
      return now;
    };
    expect((await agree(root)).commit).toMatch(/^[0-9a-f]{40}$/);

    git(root, "checkout", "--quiet", "--detach");
    expect((await agree(root)).commit).toMatch(/^[0-9a-f]{40}$/);

    // HEAD on a branch whose ref holds a tree: no commit, as before.
    const tree = git(root, "rev-parse", "HEAD^{tree}").trim();
    // (git's update-ref refuses a tree on a branch; a hand-written ref file is what it would meet)
    writeFileSync(join(root, ".git", "refs", "heads", "treeish"), `${tree}\n`);
    git(root, "symbolic-ref", "HEAD", "refs/heads/treeish");
    expect((await agree(root)).commit).toBeNull();

    git(root, "symbolic-ref", "HEAD", "refs/heads/never-born");
    expect((await agree(root)).commit).toBeNull();

    git(root, "symbolic-ref", "HEAD", "refs/heads/main");
    const linked = join(track(tempDir()), "linked wt");
    git(root, "worktree", "add", "--quiet", "--detach", linked);
    const inLinked = await agree(linked);
    expect(inLinked.commonDir).toBe(join(root, ".git"));
  });

  it("fingerprint-reads-status-and-head-ref-in-one-process: on a branch, nested, detached, unborn, outside refs/heads, a branch named like status's words", async () => {
    const root = track(makeRepo({ "README.md": "hello\n", ".gitignore": "*.log\n" }));
    writeFiles(root, { "new.txt": "n\n", "x.log": "l\n", "README.md": "changed\n" });
    git(root, "mv", "README.md", "MOVED.md");
    const agree = async () => {
      const now = await statusAndHeadRef(root, READ_ONLY);
      const symbolic = (await runGit(root, ["symbolic-ref", "-q", "HEAD"], READ_ONLY).catch(() => "")).trim();
      const status = (await runGit(root, ["status", "--porcelain=v2", "--ignored", "-z"], READ_ONLY))
        .split("\0")
        .filter((r) => r !== "");
      expect(now).toEqual({ status, symbolic: symbolic || null });
      return now.symbolic;
    };
    expect(await agree()).toBe("refs/heads/main");
    git(root, "branch", "feat/x");
    git(root, "branch", "refs/y");
    git(root, "branch", "(detached)");
    git(root, "branch", "(null)");
    git(root, "tag", "v1");
    for (const ref of [
      "refs/heads/feat/x",
      "refs/heads/refs/y",
      "refs/heads/(detached)",
      "refs/heads/(null)",
    ]) {
      git(root, "symbolic-ref", "HEAD", ref);
      expect(await agree()).toBe(ref);
    }
    git(root, "symbolic-ref", "HEAD", "refs/tags/v1");
    expect(await agree()).toBe("refs/tags/v1");
    git(root, "symbolic-ref", "HEAD", "refs/heads/never-born");
    expect(await agree()).toBe("refs/heads/never-born");
    git(root, "symbolic-ref", "HEAD", "refs/heads/main");
    git(root, "checkout", "--quiet", "--detach");
    expect(await agree()).toBeNull();
  });

  it("is an error where the separate command was one: no repository", async () => {
    const dir = track(tempDir());
    writeFileSync(join(dir, "file"), "x");
    await expect(separately(dir)).rejects.toThrow();
    await expect(commonDirAndHeadCommit(dir, READ_ONLY)).rejects.toMatchObject({ code: "GIT_FAILED" });
  });

  it("refuses a listing record that is neither an untracked name nor an index entry", () => {
    expect(splitIndexListing("? a\0H 100644 abc 0\tb\0")).toEqual({
      names: ["a", "b"],
      indexEntries: "H 100644 abc 0\tb\0",
    });
    expect(splitIndexListing("garbage\0")).toBeNull();
  });
});
