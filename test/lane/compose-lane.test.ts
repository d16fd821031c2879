import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { planCassettes, planCoder, runComposeOn } from "../support/compose-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/** The commits on the integration branch since the plan's base, oldest first. */
const branchCommits = (repo: string, branch: string, base: string): string[] =>
  git(repo, "rev-list", "--reverse", `${base}..${branch}`).split("\n").filter(Boolean);

describe("compose lane, a three-task plan on a real repo", () => {
  it("lands all three tasks stacked (T2 after a repair), then verifies and reviews the whole", {
    timeout: 400_000,
  }, async () => {
    const run = await runComposeOn({ coder: planCoder("repair") });
    expect(run.error).toBeNull();
    const plan = run.run;
    expect(plan?.state).toBe("completed");
    expect(plan?.gave_up).toBe(false);
    expect(plan?.tasks.map((t) => [t.plan_task_id, t.status, t.attempts])).toEqual([
      ["T1", "landed", 1],
      ["T2", "landed", 2],
      ["T3", "landed", 1],
    ]);
    // Stacked: each task started from the previous task's verified commit.
    expect(plan?.tasks[0]?.base_commit).toBe(plan?.base_commit);
    expect(plan?.tasks[1]?.base_commit).toBe(plan?.tasks[0]?.commit);
    expect(plan?.tasks[2]?.base_commit).toBe(plan?.tasks[1]?.commit);
    // The integration branch holds exactly the three verified commits, in order.
    const branch = plan?.integration_branch ?? "";
    expect(branch).toBe(`devflow/plan-${run.planId}`);
    expect(branchCommits(run.repo, branch, plan?.base_commit ?? "")).toEqual(
      plan?.tasks.map((t) => t.commit),
    );
    // Verify re-ran every seam and the suite on the final tree; Review passed every criterion.
    expect(plan?.verify?.overall_result).toBe("pass");
    expect(plan?.verify?.tree_commit).toBe(plan?.tasks[2]?.commit);
    expect(plan?.verify?.checks.map((c) => [c.kind, c.plan_task_id, c.envelope.overall_result])).toEqual([
      ["seam", "T1", "pass"],
      ["seam", "T2", "pass"],
      ["seam", "T3", "pass"],
      ["regression", null, "pass"],
    ]);
    expect(plan?.review?.overall_result).toBe("pass");
    expect(plan?.usage.calls).toBeGreaterThan(0);
    // The user's checkout never changed: still on main at the base.
    expect(git(run.repo, "rev-parse", "HEAD")).toBe(plan?.base_commit);
    expect(git(run.repo, "status", "--porcelain", "--untracked-files=no")).toBe("");
  });

  it("gives up when T2 exhausts its attempts: T1 stays landed, the branch holds exactly T1", {
    timeout: 400_000,
  }, async () => {
    // The never-repairing coder fails T2's seam every attempt; the iterator is asked after each.
    const cassetteDir = planCassettes({
      T2: (c) => {
        const lesson = c.calls.iterator?.[0];
        if (lesson) c.calls.iterator = [lesson, lesson, lesson];
      },
    });
    const run = await runComposeOn({ coder: planCoder("never"), cassetteDir });
    expect(run.error).toBeNull();
    const plan = run.run;
    expect(plan?.state).toBe("gave_up");
    expect(plan?.gave_up).toBe(true);
    expect(plan?.terminal?.reason).toMatch(/T2 exhausted its 3 attempts/);
    expect(plan?.tasks.map((t) => [t.plan_task_id, t.status, t.verdict, t.attempts])).toEqual([
      ["T1", "landed", "completed", 1],
      ["T2", "failed", "exhausted", 3],
      ["T3", "skipped", null, 0],
    ]);
    expect(plan?.tasks[1]?.commit).toBeNull();
    // The integration branch holds exactly the verified task, never T2's unverified work.
    const t2Branch = `devflow/${plan?.tasks[1]?.iterate_task_id}`;
    const unverified = git(run.repo, "rev-parse", t2Branch);
    expect(unverified).not.toBe(plan?.tasks[0]?.commit);
    expect(branchCommits(run.repo, plan?.integration_branch ?? "", plan?.base_commit ?? "")).toEqual([
      plan?.tasks[0]?.commit,
    ]);
    expect(plan?.verify).toBeNull();
    expect(plan?.review).toBeNull();
  });
});
