/**
 * PLAN_INVALID in the compose lane (issue 13, ADR 0055): when a task's critic or the review judges
 * the plan's assumptions wrong, the run asks to re-plan the remaining tasks; approved, one planning
 * turn (the idea planner, replayed from `replan-<n>.json`) revises them and execution resumes after
 * the last landed task; at most MaxReplans = 2; declined, unapproved (--no-input) or exhausted, the
 * plan stops and says why. Also: a task's questions pause the plan for the answer. Real repo, real
 * processes (the scripted plan coder), replayed models; assertions on plan_run.json and git.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { IdeaBrief } from "../../src/artifacts/schemas/index.js";
import { planReport } from "../../src/cli/plan-execute.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { openPlanStore, openTaskStore } from "../../src/home/index.js";
import type { ReplanAsk } from "../../src/lanes/compose/settings.js";
import { cli } from "../support/cli.js";
import {
  planCassettes,
  planCoder,
  readPart,
  reviewInvalidCassettes,
  runComposeOn,
  structuredOf,
  writePart,
} from "../support/compose-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const branchCommits = (repo: string, branch: string, base: string): string[] =>
  git(repo, "rev-list", "--reverse", `${base}..${branch}`).split("\n").filter(Boolean);
const briefOf = (repo: string, planId: string, file = "idea_brief.json"): IdeaBrief =>
  JSON.parse(readFileSync(join(repo, ".devflow", "idea", planId, file), "utf8")) as IdeaBrief;

describe("compose lane: PLAN_INVALID re-plans", () => {
  it("the review finds the plan invalid, the re-plan is approved, the added task lands and the plan completes", {
    timeout: 400_000,
  }, async () => {
    const asked: ReplanAsk[] = [];
    const run = await runComposeOn({
      coder: planCoder("repair"),
      cassetteDir: reviewInvalidCassettes(),
      settings: {
        onReplan: async (ask) => {
          asked.push(ask);
          return true;
        },
      },
    });
    expect(run.error).toBeNull();
    const plan = run.run;
    expect(asked.map((a) => [a.source, a.planTaskId, a.replan, a.maxReplans, a.landed, a.dropped])).toEqual([
      ["review", null, 1, 2, ["T1", "T2"], []],
    ]);
    expect(plan?.state).toBe("completed");
    expect(plan?.gave_up).toBe(false);
    expect(plan?.replans).toHaveLength(1);
    expect(plan?.replans[0]).toMatchObject({
      source: "review",
      plan_task_id: null,
      approved: true,
      brief_revision: 2,
      replaced: [],
      added: ["T3"],
    });
    expect(plan?.replans[0]?.reason).toMatch(/comment lines/);
    // Execution resumed from the last landed task: T3 is stacked on T2 under an iterate id of its own.
    expect(plan?.tasks.map((t) => [t.plan_task_id, t.status, t.replan ?? 0])).toEqual([
      ["T1", "landed", 0],
      ["T2", "landed", 0],
      ["T3", "landed", 1],
    ]);
    expect(plan?.tasks[2]?.iterate_task_id).toBe(`plan-${run.planId}-r1-t3`);
    expect(plan?.tasks[2]?.base_commit).toBe(plan?.tasks[1]?.commit);
    expect(branchCommits(run.repo, plan?.integration_branch ?? "", plan?.base_commit ?? "")).toEqual(
      plan?.tasks.map((t) => t.commit),
    );
    // Verify and Review ran again on the new final tree and passed.
    expect(plan?.verify?.tree_commit).toBe(plan?.tasks[2]?.commit);
    expect(plan?.verify?.checks.filter((c) => c.kind === "seam").map((c) => c.plan_task_id)).toEqual([
      "T1",
      "T2",
      "T3",
    ]);
    expect(plan?.review?.overall_result).toBe("pass");
    expect(plan?.history.map((h) => h.state)).toContain("replanning");
    // The plan artifact got a new revision; the approved one is kept in its history.
    expect(briefOf(run.repo, run.planId).tasks.map((t) => t.id)).toEqual(["T1", "T2", "T3"]);
    expect(briefOf(run.repo, run.planId, "history/idea_brief.r001.json").tasks.map((t) => t.id)).toEqual([
      "T1",
      "T2",
    ]);
    // plan_run.json's history keeps the review that judged the plan invalid.
    const store = openPlanStore(run.repo, run.planId);
    const revisions = await Promise.all(
      (await store.history("plan_run")).map((r) => store.readRevision("plan_run", r)),
    );
    expect(revisions.some((r) => r?.review?.plan_invalid === true)).toBe(true);
  });

  it("a declined re-plan stops the plan: the landed tasks stay, the brief is unchanged, the report says so", {
    timeout: 400_000,
  }, async () => {
    let asked = 0;
    const run = await runComposeOn({
      coder: planCoder("repair"),
      cassetteDir: reviewInvalidCassettes(),
      settings: {
        onReplan: async () => {
          asked++;
          return false;
        },
      },
    });
    expect(run.error).toBeNull();
    const plan = run.run;
    expect(asked).toBe(1);
    expect(plan?.state).toBe("unverified");
    expect(plan?.gave_up).toBe(false);
    expect(plan?.terminal?.reason).toMatch(/re-planning was declined/);
    expect(plan?.replans).toEqual([
      expect.objectContaining({ source: "review", approved: false, brief_revision: null, added: [] }),
    ]);
    expect(plan?.tasks.map((t) => [t.plan_task_id, t.status])).toEqual([
      ["T1", "landed"],
      ["T2", "landed"],
    ]);
    expect(branchCommits(run.repo, plan?.integration_branch ?? "", plan?.base_commit ?? "")).toEqual(
      plan?.tasks.map((t) => t.commit),
    );
    expect(briefOf(run.repo, run.planId).tasks).toHaveLength(2);
    expect(
      existsSync(join(run.repo, ".devflow", "idea", run.planId, "history", "idea_brief.r001.json")),
    ).toBe(false);
    expect(planReport(plan as NonNullable<typeof plan>)).toMatch(/re-planning was declined/);
  });

  it("MaxReplans reached: T1's critic judges the plan invalid three times; two re-plans run, the third gives up", {
    timeout: 400_000,
  }, async () => {
    const invalid = (c: Parameters<typeof structuredOf>[0]) => {
      const critic = structuredOf(c, "critic");
      critic.plan_invalid = true;
      critic.summary = "The task assumes one email column; the exports have two.";
    };
    const dir = planCassettes({ T1: invalid });
    const idea = readPart(dir, "idea");
    writePart(dir, "replan-1", idea);
    writePart(dir, "replan-2", idea);
    writePart(dir, "r1-T1", readPart(dir, "T1"));
    writePart(dir, "r2-T1", readPart(dir, "T1"));
    const asked: number[] = [];
    const run = await runComposeOn({
      coder: planCoder("repair"),
      cassetteDir: dir,
      settings: {
        onReplan: async (ask) => {
          asked.push(ask.replan);
          return true;
        },
      },
    });
    expect(run.error).toBeNull();
    const plan = run.run;
    // Asked twice; the third PLAN_INVALID is past the bound and is not asked.
    expect(asked).toEqual([1, 2]);
    expect(plan?.state).toBe("gave_up");
    expect(plan?.gave_up).toBe(true);
    expect(plan?.terminal?.reason).toMatch(/after 2 re-plan\(s\) \(MaxReplans = 2\)/);
    expect(plan?.replans.map((r) => [r.source, r.plan_task_id, r.approved, r.brief_revision])).toEqual([
      ["task", "T1", true, 2],
      ["task", "T1", true, 3],
    ]);
    expect(plan?.replans[0]?.replaced.map((t) => [t.plan_task_id, t.status])).toEqual([
      ["T1", "failed"],
      ["T2", "pending"],
      ["T3", "pending"],
    ]);
    expect(plan?.tasks.map((t) => [t.plan_task_id, t.status, t.replan, t.verdict])).toEqual([
      ["T1", "failed", 2, "blocked"],
      ["T2", "skipped", 2, null],
      ["T3", "skipped", 2, null],
    ]);
    expect(plan?.tasks[0]?.iterate_task_id).toBe(`plan-${run.planId}-r2-t1`);
    // Each revision of T1 ran as an iterate task of its own (none reused a dropped task's record).
    for (const id of ["t1", "r1-t1", "r2-t1"]) {
      const record = await openTaskStore(run.repo, `plan-${run.planId}-${id}`).read("iterator_run");
      expect([id, record?.terminal?.verdict, record?.attempts.length]).toEqual([id, "blocked", 1]);
    }
    expect(plan?.verify).toBeNull();
    expect(plan?.review).toBeNull();
    // Nothing landed: the integration branch was never created.
    expect(git(run.repo, "branch", "--list", plan?.integration_branch ?? "")).toBe("");
    for (const revision of ["r001", "r002"])
      expect(
        existsSync(join(run.repo, ".devflow", "idea", run.planId, "history", `idea_brief.${revision}.json`)),
      ).toBe(true);
    expect(planReport(plan as NonNullable<typeof plan>)).toMatch(/gave up/);
  });

  it("without an approver (--no-input) a task's PLAN_INVALID stops the plan unasked and says so", {
    timeout: 400_000,
  }, async () => {
    const dir = planCassettes({
      T1: (c) => {
        structuredOf(c, "critic").plan_invalid = true;
      },
    });
    const run = await runComposeOn({ coder: planCoder("repair"), cassetteDir: dir });
    expect(run.error).toBeNull();
    const plan = run.run;
    expect(plan?.state).toBe("stopped");
    expect(plan?.gave_up).toBe(false);
    expect(plan?.terminal?.reason).toMatch(/not approved \(no one to ask: --no-input\)/);
    expect(plan?.replans).toEqual([
      expect.objectContaining({ source: "task", plan_task_id: "T1", approved: false }),
    ]);
    expect(plan?.tasks.map((t) => [t.plan_task_id, t.status])).toEqual([
      ["T1", "failed"],
      ["T2", "skipped"],
      ["T3", "skipped"],
    ]);
  });
});

describe("compose lane: a task's questions pause the plan", () => {
  /** A one-task plan whose T1 framer first asks a question (then frames as the demo does). */
  function askingCassettes(): string {
    return planCassettes({
      idea: (c) => {
        const plan = structuredOf(c, "idea");
        plan.tasks = (plan.tasks as unknown[]).slice(0, 1);
      },
      T1: (c) => {
        const framed = c.calls.framer?.[0];
        if (!framed || !("structured" in framed)) throw new Error("T1 lost its framer answer");
        const unsure = {
          structured: {
            ...framed.structured,
            blocking_unknowns: ["Which side of the email has the spaces?"],
            recommended_next_step: "needs_more_context",
          },
        };
        c.calls.framer = [unsure, framed];
      },
      review: (c) => {
        const review = structuredOf(c, "critic");
        review.criteria = (review.criteria as unknown[]).slice(0, 4);
      },
    });
  }

  it("interactive: the question is asked, the answer resumes the same task and the plan completes", {
    timeout: 400_000,
  }, async () => {
    const asked: { planTaskId: string; questions: string[] }[] = [];
    const run = await runComposeOn({
      coder: planCoder("repair"),
      cassetteDir: askingCassettes(),
      settings: {
        onQuestions: async (ask) => {
          asked.push(ask);
          return "Both sides: ' alice@example.com '.";
        },
      },
    });
    expect(run.error).toBeNull();
    expect(asked).toEqual([{ planTaskId: "T1", questions: ["Which side of the email has the spaces?"] }]);
    expect(run.run?.tasks.map((t) => [t.plan_task_id, t.status, t.iterate_task_id])).toEqual([
      ["T1", "landed", `plan-${run.planId}-t1`],
    ]);
    expect(run.run?.state).toBe("completed");
  });

  it("--no-input: the task ends needs_more_context, the plan stops and its report carries the questions", {
    timeout: 400_000,
  }, async () => {
    const run = await runComposeOn({ coder: planCoder("repair"), cassetteDir: askingCassettes() });
    expect(run.error).toBeNull();
    const plan = run.run;
    expect(plan?.state).toBe("stopped");
    expect(plan?.tasks[0]?.verdict).toBe("needs_more_context");
    expect(plan?.tasks[0]?.reason).toMatch(/Which side of the email has the spaces\?/);
    expect(planReport(plan as NonNullable<typeof plan>)).toMatch(/Which side of the email has the spaces\?/);
  });
});

describe("devflow plan --no-input", () => {
  /**
   * The three-task demo plan whose T1 asks a question first: unattended, the plan stops at once with
   * exit 3 and the question on stderr (no coder runs). In-process CLI, replayed models.
   */
  it("a task's question stops the plan with exit 3 and prints the question; later tasks are skipped", {
    timeout: 200_000,
  }, async () => {
    const cassettes = planCassettes({
      T1: (c) => {
        const framed = c.calls.framer?.[0];
        if (!framed || !("structured" in framed)) throw new Error("T1 lost its framer answer");
        c.calls.framer = [
          {
            structured: {
              ...framed.structured,
              blocking_unknowns: ["Which side of the email has the spaces?"],
              recommended_next_step: "needs_more_context",
            },
          },
        ];
      },
    });
    const repo = createFixtureRepo("csv-import");
    const run = await cli(
      "plan",
      PLAN_DEMO_REQUEST,
      "-r",
      repo,
      "--yes",
      "--no-input",
      "--replay",
      cassettes,
      "--coder",
      planCoder("repair"),
    );
    expect(run.code).toBe(3);
    expect(run.err).toMatch(/Which side of the email has the spaces\?/);
    expect(run.err).toMatch(/\[-\] T2/);
    expect(run.err).toMatch(/stopped/);
  });
});
