/**
 * Regression (catalogue entry moves-another-tasks-devflow-branch). Cause: the user-repo check
 * left every `refs/heads/devflow/*` ref out of the fingerprint, so a coder that rewrote an
 * earlier task's result branch went unnoticed and the run completed. Fix: devflow's branches are
 * fingerprinted apart and each change is judged: the run's own branch, another task whose run is
 * live, or a commit that task's record names are devflow's own doing; anything else is a finding.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitFiles, git, makeRepo, removeDir } from "../../../test/support/test-repo.js";
import { taskDir } from "../../home/index.js";
import type { Reporter } from "./lane/reporter.js";
import { UserRepoCheck } from "./user-repo-check.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const silent = { emit: async () => {} } as unknown as Reporter;

async function started(root: string, taskId: string): Promise<UserRepoCheck> {
  const dir = taskDir(root, taskId);
  mkdirSync(dir, { recursive: true });
  return UserRepoCheck.start(root, dir, silent);
}

describe("UserRepoCheck and devflow's task branches", () => {
  it("passes the run's own branch, and a commit another task's record names", async () => {
    const root = makeRepo();
    dirs.push(root);
    git(root, "branch", "devflow/earlier");
    const check = await started(root, "mine");
    git(root, "branch", "devflow/mine");
    // As devflow lands a commit: commit-tree + update-ref, nothing else in the user's git dir
    // (a `commit` + `reset` here would write ORIG_HEAD and the user's reflogs: a real change).
    const landed = git(
      root,
      "commit-tree",
      "HEAD^{tree}",
      "-p",
      "HEAD",
      "-m",
      "earlier task's commit",
    ).trim();
    git(root, "update-ref", "refs/heads/devflow/earlier", landed);
    mkdirSync(taskDir(root, "earlier"), { recursive: true });
    writeFileSync(
      join(taskDir(root, "earlier"), "iterator_run.json"),
      JSON.stringify({ terminal: { commit: landed } }),
    );
    expect(await check.finish()).toBeNull();
  });

  it("reports another task's branch moved to a commit nothing records, and a removed one", async () => {
    const root = makeRepo();
    dirs.push(root);
    git(root, "branch", "devflow/earlier");
    git(root, "branch", "devflow/older");
    const check = await started(root, "mine");
    const evil = commitFiles(root, { "b.txt": "b\n" }, "evil");
    git(root, "update-ref", "refs/heads/devflow/earlier", evil);
    git(root, "branch", "-D", "devflow/older");
    git(root, "reset", "-q", "--hard", "HEAD~1");
    const finding = await check.finish();
    // (git also creates an empty packed-refs when it deletes a branch: listed too.)
    expect(finding?.changes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ref refs\/heads\/devflow\/earlier moved from \w+ to \w+$/),
        "ref refs/heads/devflow/older removed",
      ]),
    );
  });
});
