/**
 * Issue 11, "Leftovers", what `runs`/`clean` missed (ADR 0049):
 * - a `devflow/<id>` branch whose task folder was gone (a task cleaned without --branches, or its
 *   folder removed by hand) was listed nowhere and no command removed it;
 * - a coder checkout made before ADR 0025 (a linked worktree of the user's repository, `.git` a
 *   file) was left by `clean --task` ("linked_worktree"), and one without a task folder was never
 *   seen at all.
 * Fix: src/lanes/iterate/tasks/orphans.ts lists both, `devflow runs` shows them, `devflow clean
 * --orphans` removes them (branches by compare-and-swap, never another branch), and
 * removeTaskCheckout removes a linked worktree git lists as this repository's through `git
 * worktree remove`. A real repository, real linked worktrees, the real bin in child processes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { runDevflow } from "../faults/cli-process.js";

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();
const refs = (repo: string) => git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads");
const worktrees = (repo: string) =>
  git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length));
const devflow = (...args: string[]) => runDevflow(args, {});

let repo: string;
let gitDir: string;

beforeAll(() => {
  repo = createFixtureRepo("csv-import");
  gitDir = join(repo, ".git");
  const head = git(repo, "rev-parse", "HEAD");
  // The user's own branches, one of them looking almost like devflow's.
  git(repo, "branch", "feature/login", head);
  git(repo, "branch", "devflowish", head);
  // An orphan branch: its task was cleaned without --branches.
  git(repo, "branch", "devflow/gone", head);
  // A pre-ADR-0025 linked worktree whose task folder is gone.
  mkdirSync(join(repo, ".devflow", "worktrees"), { recursive: true });
  writeFileSync(join(repo, ".devflow", ".gitignore"), "*\n");
  git(
    repo,
    "worktree",
    "add",
    "-q",
    "-b",
    "devflow/old-linked",
    join(repo, ".devflow", "worktrees", "old-linked"),
    head,
  );
  // A pre-ADR-0025 task that still has its folder (an older run record) and its linked worktree.
  mkdirSync(join(repo, ".devflow", "iterate", "legacy"), { recursive: true });
  git(
    repo,
    "worktree",
    "add",
    "-q",
    "-b",
    "devflow/legacy",
    join(repo, ".devflow", "worktrees", "legacy"),
    head,
  );
});

describe("orphans: branches and checkouts whose task is gone", () => {
  it("devflow runs lists them (and not the task that still has its folder, nor the user's branches)", async () => {
    const run = await devflow("runs", "-r", repo);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Left by tasks that are gone (devflow clean --orphans removes them");
    expect(run.stdout).toMatch(/^ {2}gone {2}devflow\/gone @ [0-9a-f]{10}$/m);
    expect(run.stdout).toMatch(
      /^ {2}old-linked {2}devflow\/old-linked @ [0-9a-f]{10}, checkout \S+\/\.devflow\/worktrees\/old-linked$/m,
    );
    const json = JSON.parse((await devflow("runs", "-r", repo, "--json")).stdout);
    expect(json.orphans.map((o: { id: string }) => o.id)).toEqual(["gone", "old-linked"]);
    expect(json.tasks.map((t: { id: string }) => t.id)).toEqual(["legacy"]);
  });

  it("clean --orphans --dry-run removes nothing; clean --orphans removes exactly them", async () => {
    const before = refs(repo);
    const dry = await devflow("clean", "-r", repo, "--orphans", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would remove orphan gone: branch devflow\/gone$/m);
    expect(dry.stdout).toMatch(
      /^would remove orphan old-linked: checkout \.devflow\/worktrees\/old-linked, branch devflow\/old-linked$/m,
    );
    expect(refs(repo)).toBe(before);

    const status = git(repo, "status", "--porcelain");
    const run = await devflow("clean", "-r", repo, "--orphans", "--json");
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).orphans.map((o: { id: string }) => o.id)).toEqual(["gone", "old-linked"]);
    // Only the two orphan branches went; every other branch stays where it was.
    const expected = before
      .split("\n")
      .filter(
        (l) => !l.startsWith("refs/heads/devflow/gone ") && !l.startsWith("refs/heads/devflow/old-linked "),
      )
      .join("\n");
    expect(refs(repo)).toBe(expected);
    expect(refs(repo)).toContain("refs/heads/devflow/legacy ");
    // The linked worktree and git's bookkeeping of it are gone; the legacy task's is still there.
    expect(existsSync(join(repo, ".devflow", "worktrees", "old-linked"))).toBe(false);
    expect(existsSync(join(gitDir, "worktrees", "old-linked"))).toBe(false);
    expect(worktrees(repo).some((w) => w.endsWith("/legacy"))).toBe(true);
    expect(git(repo, "status", "--porcelain")).toBe(status);
  });

  it("clean --task of a pre-ADR-0025 task removes its linked worktree through git (was: left in place)", async () => {
    const run = await devflow("clean", "-r", repo, "--task", "legacy");
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(repo, ".devflow", "worktrees", "legacy"))).toBe(false);
    expect(existsSync(join(gitDir, "worktrees", "legacy"))).toBe(false);
    expect(worktrees(repo)).toHaveLength(1);
    // Without --branches its branch stays (now an orphan, listed as one).
    expect(refs(repo)).toContain("refs/heads/devflow/legacy ");
    const runs = await devflow("runs", "-r", repo);
    expect(runs.stdout).toMatch(/^ {2}legacy {2}devflow\/legacy @ /m);
  });
});
