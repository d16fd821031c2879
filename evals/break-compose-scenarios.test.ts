import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findScenario } from "../scenarios/index.js";
import { PlanRun } from "../src/index.js";
import { refereeCompose } from "./referee/compose-referee.js";
import { cleanupRuns, failed, regrade, runGraded, tamperArtifact } from "./sabotage.test-support.js";
import type { Check, ScenarioRun } from "./types.js";

/**
 * The compose scenarios (ADR 0058) broken on purpose after an honest run: a plan_run.json that
 * lies, or an integration branch that holds other than what it records. The grader (from the
 * artifacts) and the independent referee (plain git on fresh clones) must each name what broke.
 * Each untouched run passes first, so a failure is the tamper's.
 */
afterAll(cleanupRuns);

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const failedChecks = (checks: Check[]) => checks.filter((c) => !c.pass).map((c) => c.criterion);

async function passingRun(name: string): Promise<ScenarioRun> {
  const graded = await runGraded(name);
  expect(graded.evaluation.notes).toEqual([]);
  expect(graded.evaluation.ok).toBe(true);
  return graded.run;
}

async function referee(name: string, run: ScenarioRun): Promise<string[]> {
  const { scenario } = await findScenario(name);
  return failedChecks(await refereeCompose(scenario, run));
}

const planFile = (run: ScenarioRun) => join(run.planDir ?? "", "plan_run.json");

describe("compose_task_exhausts_plan_gives_up, broken after the run", () => {
  const name = "compose_task_exhausts_plan_gives_up";
  let run: ScenarioRun;
  beforeAll(async () => {
    run = await passingRun(name);
  }, 400_000);

  it("the integration branch moved onto T2's unverified commit: the referee says the branch does not match", {
    timeout: 120_000,
  }, async () => {
    const plan = PlanRun.parse(JSON.parse(execFileSync("cat", [planFile(run)], { encoding: "utf8" })));
    const repo = run.repo ?? "";
    const t2 = git(repo, "rev-parse", `devflow/${plan.tasks[1]?.iterate_task_id}`);
    const tip = git(repo, "rev-parse", plan.integration_branch);
    git(repo, "update-ref", `refs/heads/${plan.integration_branch}`, t2);
    try {
      expect(await referee(name, run)).toEqual(["referee_plan_branch_matches_record"]);
    } finally {
      git(repo, "update-ref", `refs/heads/${plan.integration_branch}`, tip);
    }
    expect(await referee(name, run)).toEqual([]);
  });

  it("plan_run.json claims T2 landed with its unverified commit: grader and referee both catch it", {
    timeout: 120_000,
  }, async () => {
    const repo = run.repo ?? "";
    tamperArtifact(planFile(run), PlanRun, (plan) => {
      const t2 = plan.tasks[1];
      if (t2) {
        t2.status = "landed";
        t2.commit = git(repo, "rev-parse", `devflow/${t2.iterate_task_id}`);
      }
    });
    expect(failed(await regrade(name, run))).toEqual(["plan_tasks"]);
    expect(await referee(name, run)).toEqual([
      "referee_plan_branch_matches_record",
      "referee_plan_seams_green",
    ]);
  });
});

describe("compose_plan_lands_every_task, broken after the run", () => {
  const name = "compose_plan_lands_every_task";
  let run: ScenarioRun;
  beforeAll(async () => {
    run = await passingRun(name);
  }, 400_000);

  it("a commit that breaks the import put on the integration branch: the referee's seams and hidden test go red", {
    timeout: 120_000,
  }, async () => {
    const plan = PlanRun.parse(JSON.parse(execFileSync("cat", [planFile(run)], { encoding: "utf8" })));
    const repo = run.repo ?? "";
    // A lie on the branch: the final tree's import is replaced by the base version, and the branch
    // moved there without plan_run.json knowing.
    const wt = join(repo, "..", "tamper-wt");
    git(repo, "worktree", "add", "--quiet", "--detach", wt, plan.integration_branch);
    git(wt, "checkout", plan.base_commit, "--", "src/csv-import.js");
    git(wt, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "undo the import");
    git(repo, "update-ref", `refs/heads/${plan.integration_branch}`, git(wt, "rev-parse", "HEAD"));
    expect(await referee(name, run)).toEqual([
      "referee_plan_branch_matches_record",
      "referee_plan_seams_green",
      "referee_hidden_acceptance",
    ]);
  });

  it("Verify recorded without T2's seam: the grader names plan_verify", async () => {
    tamperArtifact(planFile(run), PlanRun, (plan) => {
      if (plan.verify) plan.verify.checks = plan.verify.checks.filter((c) => c.plan_task_id !== "T2");
    });
    expect(failed(await regrade(name, run))).toEqual(["plan_verify"]);
  });
});
