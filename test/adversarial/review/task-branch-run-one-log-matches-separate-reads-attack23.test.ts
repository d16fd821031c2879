/**
 * Hostile review, session 23 (review23), ADR 0066: the code node reads the task ref and the coder's
 * commits from one decorated `git log` (`taskBranchRun`) instead of `rev-parse <ref>^{commit}` and
 * `rev-list <since>..<ref>`. A coder owns its checkout's refs and object database, so it tries to
 * make the one-call reading differ from the separate questions, the head the gate then compares the
 * ref with above all: a look-alike `<ref>/x` beside the ref in packed-refs (decorate-refs matches a
 * non-glob pattern as a prefix), a replace ref for the head or for `since`, a graft file, a
 * `.git/shallow` that cuts `since`'s parents, a stale commit-graph, and a reflog rewritten. Held:
 * on each, the answer equals the separate questions' (whichever of them it falls back to).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { taskBranchHead, taskBranchRun } from "../../../src/workspace/branch-guard.js";
import { runGit } from "../../../src/workspace/git.js";
import { createTaskWorktree } from "../../../src/workspace/task-worktree.js";
import type { TaskWorkspace } from "../../../src/workspace/types.js";
import { git, makeRepo, removeDir } from "../../support/test-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const TASK = "attack23-run";
const REF = `refs/heads/devflow/${TASK}`;
const ID = { "user.name": "t", "user.email": "t@t" };
const idArgs = Object.entries(ID).flatMap(([k, v]) => ["-c", `${k}=${v}`]);

async function workspace(): Promise<{ ws: TaskWorkspace; commonDir: string; commits: string[] }> {
  const root = makeRepo({ "README.md": "hello\n" });
  dirs.push(root);
  const ws = await createTaskWorktree({ repoRoot: root, taskId: TASK });
  const commits: string[] = [];
  for (const m of ["one", "two", "three"]) {
    git(ws.worktree, ...idArgs, "commit", "-q", "--allow-empty", "-m", m);
    commits.push(git(ws.worktree, "rev-parse", "HEAD").trim());
  }
  const commonDir = resolve(ws.worktree, git(ws.worktree, "rev-parse", "--git-common-dir").trim());
  return { ws, commonDir, commits };
}

/** The separate questions the one log replaced (ADR 0066's baseline), run the way devflow runs git. */
async function separately(ws: TaskWorkspace, since: string) {
  const head = await taskBranchHead(ws.worktree, TASK);
  // devflow's own git (replace objects off, neutral config), not the test helper's.
  const commits = await runGit(ws.worktree, [
    "rev-list",
    "--topo-order",
    "--reverse",
    `${since}..${head}`,
    "--",
  ])
    .then((out) => out.split("\n").filter(Boolean))
    .catch(() => []);
  return { head, commits };
}

describe("taskBranchRun against a coder's ref and object games (attack23)", () => {
  it("a look-alike <ref>/x beside the ref in packed-refs does not name the head", async () => {
    const { ws, commonDir, commits } = await workspace();
    const head = commits[2] as string;
    // Loose refs cannot hold both <ref> and <ref>/x; packed-refs can.
    git(ws.worktree, "pack-refs", "--all");
    writeFileSync(
      join(commonDir, "packed-refs"),
      `# pack-refs with: peeled fully-peeled sorted \n${head} ${REF}\n${commits[0]} ${REF}/x\n`,
    );
    const run = await taskBranchRun(ws.worktree, TASK, ws.baseCommit);
    expect(run).toEqual(await separately(ws, ws.baseCommit));
    expect(run.head).toBe(head);
  });

  it("a replace ref for the head or for since, a graft and a shallow file give the separate answer", async () => {
    const { ws, commonDir, commits } = await workspace();
    const [one, two, three] = commits as [string, string, string];
    git(ws.worktree, "replace", three, one);
    expect(await taskBranchRun(ws.worktree, TASK, ws.baseCommit)).toEqual(
      await separately(ws, ws.baseCommit),
    );
    git(ws.worktree, "replace", "-d", three);
    git(ws.worktree, "replace", "--graft", two, ws.baseCommit);
    expect(await taskBranchRun(ws.worktree, TASK, one)).toEqual(await separately(ws, one));
    git(ws.worktree, "replace", "-d", two);
    mkdirSync(join(commonDir, "info"), { recursive: true });
    writeFileSync(join(commonDir, "info", "grafts"), `${two}\n`);
    expect(await taskBranchRun(ws.worktree, TASK, one)).toEqual(await separately(ws, one));
    writeFileSync(join(commonDir, "info", "grafts"), "");
    writeFileSync(join(commonDir, "shallow"), `${two}\n`);
    expect(await taskBranchRun(ws.worktree, TASK, two)).toEqual(await separately(ws, two));
    expect(await taskBranchRun(ws.worktree, TASK, one)).toEqual(await separately(ws, one));
  });

  it("a commit-graph written before the ref moved and a rewritten reflog give the separate answer", async () => {
    const { ws, commonDir, commits } = await workspace();
    git(ws.worktree, "commit-graph", "write", "--reachable");
    git(ws.worktree, "reset", "-q", "--hard", commits[0] as string);
    git(ws.worktree, ...idArgs, "commit", "-q", "--allow-empty", "-m", "other");
    writeFileSync(join(commonDir, "logs", REF), "");
    const run = await taskBranchRun(ws.worktree, TASK, ws.baseCommit);
    expect(run).toEqual(await separately(ws, ws.baseCommit));
    expect(run.head).toBe(git(ws.worktree, "rev-parse", "HEAD").trim());
  });
});
