import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, restoreEnv, tempDir, writeFiles } from "../../test/support/test-repo.js";
import { commitOnTaskBranch } from "./commits.js";
import { changedFilesAndLinks, ignoredOutsideSnapshot, snapshotTree } from "./snapshot.js";
import { createTaskWorktree } from "./task-worktree.js";
import { openVerifyCheckout, resetVerifyCheckout, symlinksLeavingRepo } from "./verify-checkout.js";

const dirs: string[] = [];
const savedEnv = { ...process.env };
afterEach(() => {
  restoreEnv(savedEnv);
  for (const dir of dirs.splice(0)) removeDir(dir);
});

/** A smudge filter that rewrites `bug` to `fixed` in every checked-out file, as a config section. */
const SMUDGE = '[filter "tidy"]\n\tsmudge = sed s/bug/fixed/\n\tclean = cat\n';

const TASK = "verify-test";

async function setup() {
  const root = makeRepo({ "README.md": "hello\n", ".gitignore": "build/\n" });
  dirs.push(root);
  const ws = await createTaskWorktree({ repoRoot: root, taskId: TASK });
  const checkout = await openVerifyCheckout({
    repoRoot: root,
    taskId: TASK,
    baseCommit: ws.baseCommit,
    coderCheckout: ws.worktree,
  });
  return { root, ws, checkout };
}

const objectIn = (repo: string, sha: string) => {
  try {
    git(repo, "cat-file", "-e", sha);
    return true;
  } catch {
    return false;
  }
};

describe("the verification checkout (ADR 0024)", () => {
  it("snapshots into devflow's store, ignoring the coder's info/exclude; the commit brings the objects over", async () => {
    const { root, ws } = await setup();
    const exclude = git(ws.worktree, "rev-parse", "--git-path", "info/exclude").trim();
    const excludePath = resolve(ws.worktree, exclude);
    mkdirSync(join(excludePath, ".."), { recursive: true });
    writeFileSync(excludePath, "hidden.js\n");
    writeFiles(ws.worktree, { "hidden.js": "x\n", "build/out.js": "y\n" });
    const tree = await snapshotTree(ws.worktree);
    expect(objectIn(root, tree)).toBe(false);
    expect(
      git(root, "--git-dir", join(root, ".devflow", "verify", `${TASK}.git`), "ls-tree", "--name-only", tree),
    ).toContain("hidden.js");
    expect(await ignoredOutsideSnapshot(ws.worktree)).toEqual(["build/"]);
    const sha = await commitOnTaskBranch({
      repoRoot: root,
      worktree: ws.worktree,
      taskId: TASK,
      expectedHead: ws.baseCommit,
      tree,
      message: "devflow: verified",
    });
    expect(sha).not.toBeNull();
    expect(git(root, "show", "--name-only", "--format=", `devflow/${TASK}`)).toContain("hidden.js");
  });

  it("resets to exactly the tree: a modified file restored, leftovers gone, the dependency link kept", async () => {
    const { root, ws, checkout } = await setup();
    writeFiles(ws.worktree, { "a.js": "fixed\n" });
    const tree = await snapshotTree(ws.worktree);
    const link = { path: "node_modules", target: join(root, "node_modules") };
    mkdirSync(link.target);
    await resetVerifyCheckout(checkout, tree, [link]);
    const inode = statSync(checkout.dir).ino;
    symlinkSync(link.target, join(checkout.dir, "node_modules"));
    writeFiles(checkout.dir, { "a.js": "changed by a test\n", "report.txt": "r\n", "build/cache": "c\n" });
    await resetVerifyCheckout(checkout, tree, [link]);
    expect(statSync(checkout.dir).ino).toBe(inode);
    expect(readFileSync(join(checkout.dir, "a.js"), "utf8")).toBe("fixed\n");
    expect(existsSync(join(checkout.dir, "report.txt"))).toBe(false);
    expect(existsSync(join(checkout.dir, "build"))).toBe(false);
    expect(existsSync(join(checkout.dir, "node_modules"))).toBe(true);
    // A git run by a test sees devflow's repository, HEAD at the base.
    expect(git(checkout.dir, "rev-parse", "HEAD").trim()).toBe(ws.baseCommit);
  });

  /**
   * seam-run-swaps-the-verified-blob-in-devflows-object-store (review row 2). Cause: the commit
   * shipped objects with `pack-objects` straight into the user's object dir; pack-objects never
   * re-hashes, so a loose object rewritten in devflow's store after verification shipped under
   * the verified id. Fix: the pack goes in through `index-pack --stdin --strict` (shipObjects).
   */
  it("seam-run-swaps-the-verified-blob-in-devflows-object-store: the commit is refused, nothing moves", async () => {
    const { root, ws, checkout } = await setup();
    writeFiles(ws.worktree, { "a.js": "fixed\n" });
    const tree = await snapshotTree(ws.worktree);
    const blob = git(ws.worktree, "--git-dir", checkout.gitDir, "rev-parse", `${tree}:a.js`).trim();
    const object = join(checkout.gitDir, "objects", blob.slice(0, 2), blob.slice(2));
    expect(existsSync(object)).toBe(true);
    const evil = Buffer.from("bug\n");
    const packsBefore = readdirSync(join(root, ".git", "objects", "pack"));
    rmSync(object, { force: true });
    writeFileSync(object, deflateSync(Buffer.concat([Buffer.from(`blob ${evil.length}\0`), evil])));
    await expect(
      commitOnTaskBranch({
        repoRoot: root,
        worktree: ws.worktree,
        taskId: TASK,
        expectedHead: ws.baseCommit,
        tree,
        message: "devflow: verified",
      }),
    ).rejects.toMatchObject({ code: "COMMIT_REFUSED", message: expect.stringMatching(/integrity check/) });
    expect(git(root, "rev-parse", `devflow/${TASK}`).trim()).toBe(ws.baseCommit);
    expect(objectIn(root, blob)).toBe(false);
    // Nothing of the refused pack reaches the user's object dir (index-pack ran in a quarantine).
    expect(readdirSync(join(root, ".git", "objects", "pack"))).toEqual(packsBefore);
    expect(readdirSync(checkout.gitDir).filter((name) => name.startsWith("ship-"))).toEqual([]);
  });

  /**
   * home-gitconfig-smudge-filter-fixes-only-the-verification-checkout (review row 1). Cause:
   * devflow's git inherited HOME and read ~/.gitconfig, ~/.config/git/attributes, /etc/gitconfig
   * and GIT_CONFIG_PARAMETERS: a coder (HOME is writable) planted a smudge filter that put the fix
   * into the verification checkout only. Fix: gitEnv gives devflow's git no global or system
   * config or attributes (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM, GIT_ATTR_NOSYSTEM,
   * core.attributesFile=/dev/null) and drops inherited GIT_CONFIG_*.
   */
  it("home-gitconfig-smudge-filter-fixes-only-the-verification-checkout: no global config reaches a reset", async () => {
    const { ws, checkout } = await setup();
    const home = tempDir("devflow-home-");
    dirs.push(home);
    mkdirSync(join(home, ".config", "git"), { recursive: true });
    writeFileSync(join(home, ".global-attributes"), "*.js filter=tidy\n");
    writeFileSync(
      join(home, ".gitconfig"),
      `[core]\n\tattributesFile = ${join(home, ".global-attributes")}\n${SMUDGE}`,
    );
    writeFileSync(join(home, ".config", "git", "attributes"), "*.txt filter=tidy\n");
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = join(home, ".config");
    process.env.GIT_CONFIG_PARAMETERS = "'filter.tidy.smudge'='sed s/bug/fixed/'";
    process.env.GIT_CONFIG_COUNT = "1";
    process.env.GIT_CONFIG_KEY_0 = "filter.tidy.smudge";
    process.env.GIT_CONFIG_VALUE_0 = "sed s/bug/fixed/";
    writeFiles(ws.worktree, { "a.js": "bug\n", "b.txt": "bug\n" });
    const tree = await snapshotTree(ws.worktree);
    await resetVerifyCheckout(checkout, tree);
    expect(readFileSync(join(checkout.dir, "a.js"), "utf8")).toBe("bug\n");
    expect(readFileSync(join(checkout.dir, "b.txt"), "utf8")).toBe("bug\n");
  });

  /**
   * A verification run can write devflow's git dir: a filter in its config and attributes in its
   * info/ would shape the next reset (before regression) and the next snapshot. Fix: the config
   * and info/ are rewritten to devflow's own at every open and reset (restoreOwnGitFiles).
   */
  it("verification-run-plants-a-filter-in-devflows-git-dir: the next reset still gives the tree's bytes", async () => {
    const { ws, checkout } = await setup();
    writeFiles(ws.worktree, { "a.js": "bug\n" });
    const tree = await snapshotTree(ws.worktree);
    await resetVerifyCheckout(checkout, tree);
    writeFileSync(
      join(checkout.gitDir, "config"),
      `${readFileSync(join(checkout.gitDir, "config"), "utf8")}${SMUDGE}`,
    );
    mkdirSync(join(checkout.gitDir, "info"), { recursive: true });
    writeFileSync(join(checkout.gitDir, "info", "attributes"), "*.js filter=tidy\n");
    rmSync(join(checkout.dir, "a.js"));
    await resetVerifyCheckout(checkout, tree);
    expect(readFileSync(join(checkout.dir, "a.js"), "utf8")).toBe("bug\n");
  });

  it("leaves devflow's home out of the snapshot when the checkout is the repository (URL clone)", async () => {
    const root = makeRepo({ "README.md": "hello\n" });
    dirs.push(root);
    const base = git(root, "rev-parse", "HEAD").trim();
    await openVerifyCheckout({ repoRoot: root, taskId: TASK, baseCommit: base, coderCheckout: root });
    writeFiles(root, { ".devflow/iterate/t/x.json": "{}\n", "src/a.js": "a\n" });
    const tree = await snapshotTree(root);
    const names = git(
      root,
      "--git-dir",
      join(root, ".devflow", "verify", `${TASK}.git`),
      "ls-tree",
      "-r",
      "--name-only",
      tree,
    );
    expect(names.split("\n")).toContain("src/a.js");
    expect(names).not.toContain(".devflow");
    expect(await ignoredOutsideSnapshot(root)).toEqual([]);
  });

  it("names symlinks that leave the repository", async () => {
    const { ws } = await setup();
    mkdirSync(join(ws.worktree, "t"));
    symlinkSync("/etc/hostname", join(ws.worktree, "t", "abs"));
    symlinkSync("../../outside", join(ws.worktree, "t", "up"));
    symlinkSync("../README.md", join(ws.worktree, "t", "inside"));
    const tree = await snapshotTree(ws.worktree);
    expect(await symlinksLeavingRepo(ws.worktree, tree, ["t/abs", "t/up", "t/inside"])).toEqual([
      "t/abs -> /etc/hostname",
      "t/up -> ../../outside",
    ]);
  });

  /**
   * symlink-chain-leaves-the-repo-only-when-resolved (review row 8). Cause: each link target was
   * normalized on paper on its own; `clean.txt -> a/b/c/d/up/../../../../../outside/clean.txt`
   * normalizes to `outside/clean.txt`, but the kernel follows `up -> ../../../../x` first and lands
   * above the checkout. Fix: links of the tree are followed while resolving (leavesRepo).
   */
  it("symlink-chain-leaves-the-repo-only-when-resolved: a chain of inside-looking links is named", async () => {
    const { ws } = await setup();
    mkdirSync(join(ws.worktree, "a", "b", "c", "d"), { recursive: true });
    mkdirSync(join(ws.worktree, "x"));
    writeFileSync(join(ws.worktree, "x", ".keep"), "");
    symlinkSync("../../../../x", join(ws.worktree, "a", "b", "c", "d", "up"));
    const chain = "a/b/c/d/up/../../../../../outside/clean.txt";
    symlinkSync(chain, join(ws.worktree, "clean.txt"));
    // A dangling link inside, a link through a link that stays inside, and a loop.
    symlinkSync("missing/file.txt", join(ws.worktree, "dangling"));
    symlinkSync("a/b/c/d/up/.keep", join(ws.worktree, "keep-via-up"));
    symlinkSync("loop-b", join(ws.worktree, "loop-a"));
    symlinkSync("loop-a", join(ws.worktree, "loop-b"));
    const tree = await snapshotTree(ws.worktree);
    expect(
      await symlinksLeavingRepo(ws.worktree, tree, [
        "clean.txt",
        "a/b/c/d/up",
        "dangling",
        "keep-via-up",
        "loop-a",
      ]),
    ).toEqual([`clean.txt -> ${chain}`, "loop-a -> loop-b"]);
    // issue 11: the verify node passes the links it read from the diff against base instead of
    // listing them again; the answer is the same, and no link among the changes means none leaves.
    const sinceBase = await changedFilesAndLinks(ws.worktree, ws.baseCommit, tree);
    const listedAgain = await symlinksLeavingRepo(ws.worktree, tree, sinceBase.files);
    expect(listedAgain).toEqual([`clean.txt -> ${chain}`, "loop-a -> loop-b", "loop-b -> loop-a"]);
    expect(await symlinksLeavingRepo(ws.worktree, tree, sinceBase.files, sinceBase.links)).toEqual(
      listedAgain,
    );
    expect(await symlinksLeavingRepo(ws.worktree, tree, ["x/.keep"], [])).toEqual([]);
  });
});
