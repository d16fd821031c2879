import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { landOnPlanBranch, planBranchHead } from "./plan-branch.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

function repoWithCommits(): { repo: string; base: string; commit: (name: string, parent: string) => string } {
  const repo = mkdtempSync(join(tmpdir(), "devflow-plan-branch-"));
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "a.txt"), "a\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  const base = git(repo, "rev-parse", "HEAD");
  const tree = git(repo, "rev-parse", "HEAD^{tree}");
  const commit = (name: string, parent: string) => git(repo, "commit-tree", tree, "-p", parent, "-m", name);
  return { repo, base, commit };
}

describe("the integration branch holds exactly the verified tasks", () => {
  it("lands stacked commits one by one, and a repeated landing (crash after the move) is accepted", async () => {
    const { repo, base, commit } = repoWithCommits();
    const t1 = commit("T1", base);
    const t2 = commit("T2", t1);
    await landOnPlanBranch(repo, "devflow/plan-x", { commit: t1, onto: base, first: true });
    await landOnPlanBranch(repo, "devflow/plan-x", { commit: t1, onto: base, first: true });
    await landOnPlanBranch(repo, "devflow/plan-x", { commit: t2, onto: t1, first: false });
    expect(await planBranchHead(repo, "devflow/plan-x")).toBe(t2);
  });

  it("refuses a commit that carries more than one task's work (not one commit on the last landed one)", async () => {
    const { repo, base, commit } = repoWithCommits();
    const t1 = commit("T1", base);
    const extra = commit("unverified", t1);
    const t2 = commit("T2", extra);
    await landOnPlanBranch(repo, "devflow/plan-x", { commit: t1, onto: base, first: true });
    await expect(
      landOnPlanBranch(repo, "devflow/plan-x", { commit: t2, onto: t1, first: false }),
    ).rejects.toThrow(/not one commit on top of/);
    expect(await planBranchHead(repo, "devflow/plan-x")).toBe(t1);
  });

  it("refuses to move a branch that was moved by hand since the last landing", async () => {
    const { repo, base, commit } = repoWithCommits();
    const t1 = commit("T1", base);
    const other = commit("by hand", base);
    const t2 = commit("T2", t1);
    await landOnPlanBranch(repo, "devflow/plan-x", { commit: t1, onto: base, first: true });
    git(repo, "update-ref", "refs/heads/devflow/plan-x", other);
    await expect(
      landOnPlanBranch(repo, "devflow/plan-x", { commit: t2, onto: t1, first: false }),
    ).rejects.toThrow(/stands at/);
    expect(await planBranchHead(repo, "devflow/plan-x")).toBe(other);
  });
});
