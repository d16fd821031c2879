/**
 * Hostile review (session 18, review18) of this stop's task setup and clean changes:
 *
 * - The base commit and "does the task branch exist" now come from one `git cat-file
 *   --batch-check` (task-worktree.ts planTaskWorktree). A tag named exactly like the base sha (on
 *   another commit), HEAD detached at an annotated tag, HEAD pointing at a tree: the base must be the
 *   commit asked for, the tag's commit, or a refusal, never another commit or a line misread.
 * - `devflow clean` sweeps `.idle/.clean-<pid>-<hex>` claims whose process is gone (idle-checkouts.ts
 *   abandonedClaims/removeClaim, what cleanTasks runs): a claim that is a link, or a directory
 *   holding links, must lose only itself; a claim of a live process (or a pid reused by one) stays.
 *
 * All DEFENDED (no change needed).
 *
 *     VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/setup-and-clean-attack18.test.ts
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { idleCoderCheckoutsDir } from "../../../src/home/paths.js";
import { abandonedClaims, removeClaim } from "../../../src/lanes/iterate/tasks/idle-checkouts.js";
import { planTaskWorktree } from "../../../src/workspace/task-worktree.js";
import { commitFiles, git, makeRepo, removeDir, tempDir } from "../../support/test-repo.js";

const dirs: string[] = [];
const kids: number[] = [];
afterEach(() => {
  for (const pid of kids.splice(0))
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function repo(): { root: string; first: string; second: string } {
  const root = makeRepo({ "a.js": "1\n" });
  dirs.push(root);
  const first = git(root, "rev-parse", "HEAD").trim();
  const second = commitFiles(root, { "a.js": "2\n" }, "second");
  return { root, first, second };
}

describe("review18: one batch-check for the base and the branch", () => {
  it("a tag named exactly like the base sha, on another commit, does not move the base", async () => {
    const { root, first, second } = repo();
    git(root, "tag", first, second);
    const plan = await planTaskWorktree({ repoRoot: root, taskId: "t1", baseCommit: first });
    expect(plan.baseCommit).toBe(first);
  });

  it("HEAD detached at an annotated tag: the base is the tag's commit", async () => {
    const { root, first } = repo();
    git(root, "-c", "user.email=x@y", "-c", "user.name=x", "tag", "-a", "-m", "m", "v1", first);
    const tagObject = git(root, "rev-parse", "v1").trim();
    expect(tagObject).not.toBe(first);
    writeFileSync(join(root, ".git", "HEAD"), `${tagObject}\n`);
    const plan = await planTaskWorktree({ repoRoot: root, taskId: "t2" });
    expect(plan.baseCommit).toBe(first);
  });

  it("HEAD pointing at a tree, or a base that is a blob: refused, no base made up", async () => {
    const { root } = repo();
    const tree = git(root, "rev-parse", "HEAD^{tree}").trim();
    const blob = git(root, "rev-parse", "HEAD:a.js").trim();
    await expect(planTaskWorktree({ repoRoot: root, taskId: "t3", baseCommit: blob })).rejects.toThrow();
    writeFileSync(join(root, ".git", "HEAD"), `${tree}\n`);
    await expect(planTaskWorktree({ repoRoot: root, taskId: "t4" })).rejects.toThrow();
  });

  it("the task branch existing is seen whatever HEAD resolves to (an unborn HEAD too)", async () => {
    const { root, first } = repo();
    git(root, "branch", "devflow/t5", first);
    await expect(planTaskWorktree({ repoRoot: root, taskId: "t5" })).rejects.toThrow(/already exists/);
    git(root, "symbolic-ref", "HEAD", "refs/heads/unborn");
    await expect(planTaskWorktree({ repoRoot: root, taskId: "t5", baseCommit: first })).rejects.toThrow(
      /already exists/,
    );
  });
});

/** A pid that was a process of ours and is gone now. */
function deadPid(): number {
  const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

describe("review18: clean's sweep of abandoned .idle claims", () => {
  it("a claim that is a link, or a directory of links, loses only itself; live (or reused) pids' claims stay", async () => {
    const { root } = repo();
    const outside = tempDir("devflow-attack18-outside-");
    dirs.push(outside);
    mkdirSync(join(outside, "keep"), { recursive: true });
    writeFileSync(join(outside, "keep", "precious.txt"), "keep me\n");
    const idle = idleCoderCheckoutsDir(root);
    mkdirSync(idle, { recursive: true });
    const dead = deadPid();
    const linkClaim = join(idle, `.clean-${dead}-aaaaaaaaaaaa`);
    symlinkSync(join(outside, "keep"), linkClaim);
    const dirClaim = join(idle, `.clean-${dead}-bbbbbbbbbbbb`);
    mkdirSync(join(dirClaim, "sub"), { recursive: true });
    symlinkSync(join(outside, "keep"), join(dirClaim, "sub", "out"));
    symlinkSync(root, join(dirClaim, "user"));
    // A live process's claim: another clean at work, or a pid the kernel gave to someone else.
    const live = spawn("sleep", ["30"], { stdio: "ignore" });
    kids.push(live.pid as number);
    const liveClaim = join(idle, `.clean-${live.pid}-cccccccccccc`);
    mkdirSync(liveClaim);
    // Not a claim name: never touched.
    const other = join(idle, `.clean-${dead}-notahexname!`);
    mkdirSync(other);

    const found = abandonedClaims(root).map((c) => c.path);
    expect(found.sort()).toEqual([linkClaim, dirClaim].sort());
    for (const path of found) removeClaim(path);

    expect(readFileSync(join(outside, "keep", "precious.txt"), "utf8")).toBe("keep me\n");
    expect(existsSync(join(root, "a.js"))).toBe(true);
    expect(existsSync(linkClaim) || isLink(linkClaim)).toBe(false);
    expect(existsSync(dirClaim)).toBe(false);
    expect(existsSync(liveClaim)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
