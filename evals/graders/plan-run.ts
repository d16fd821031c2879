import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExpectedPlan } from "../../scenarios/scenario.js";
import { IteratorRun, PlanRun } from "../../src/index.js";
import { check, checkProblems } from "../grade.js";
import type { Check, ScenarioRun } from "../types.js";

/** plan_run.json of a compose run, parsed with its schema; null with the reason when it cannot be. */
export function loadPlanRun(run: ScenarioRun): { plan: PlanRun | null; problem: string | null } {
  if (!run.planDir) return { plan: null, problem: `the run never planned (${run.error ?? "no plan dir"})` };
  const file = join(run.planDir, "plan_run.json");
  if (!existsSync(file))
    return { plan: null, problem: `${file} does not exist (${run.error ?? "no error"})` };
  const parsed = PlanRun.safeParse(JSON.parse(readFileSync(file, "utf8")));
  return parsed.success
    ? { plan: parsed.data, problem: null }
    : { plan: null, problem: `plan_run.json does not fit its schema: ${parsed.error.message.slice(0, 300)}` };
}

/**
 * A compose run graded from its artifacts (ADR 0058): plan_run.json's verdict, each task's status
 * and attempts, the stacking of landed tasks, Verify (one passing seam check per landed task and the
 * regression suite, on the last landed commit), Review and re-plans; and every task that ran agrees
 * with its own iterate task's run record (verdict, commit, attempts).
 */
export function gradePlanRun(run: ScenarioRun, expected: ExpectedPlan | undefined): Check[] {
  const { plan, problem } = loadPlanRun(run);
  if (!plan || !expected)
    return [check("plan_run_recorded", false, problem ?? "the scenario expects no plan")];
  const landed = plan.tasks.filter((t) => t.status === "landed");
  const checks: Check[] = [
    check("plan_run_recorded", true, ""),
    check("compose_ran", run.error === null, `the compose run threw: ${run.error}`),
  ];
  checks.push(
    checkProblems("plan_verdict", [
      plan.state !== expected.state && `state is ${plan.state}, expected ${expected.state}`,
      plan.terminal?.verdict !== expected.state &&
        `terminal is ${plan.terminal?.verdict ?? "null"}, expected ${expected.state}`,
      plan.gave_up !== expected.gaveUp && `gave_up is ${plan.gave_up}, expected ${expected.gaveUp}`,
    ]),
  );
  const tasks = plan.tasks.map((t) => [t.plan_task_id, t.status, t.attempts]);
  checks.push(
    check(
      "plan_tasks",
      JSON.stringify(tasks) === JSON.stringify(expected.tasks),
      `tasks are ${JSON.stringify(tasks)}, expected ${JSON.stringify(expected.tasks)}`,
    ),
  );
  checks.push(
    checkProblems(
      "plan_stacked",
      landed.map((t, i) => {
        const onto = i === 0 ? plan.base_commit : landed[i - 1]?.commit;
        return (
          (t.base_commit !== onto || !t.commit) &&
          `${t.plan_task_id} started from ${t.base_commit?.slice(0, 10)}, not from ${onto?.slice(0, 10)}, or has no commit`
        );
      }),
    ),
  );
  checks.push(gradeVerify(plan, expected, landed));
  checks.push(
    check(
      "plan_review",
      (plan.review?.overall_result ?? null) === expected.review,
      `review is ${plan.review?.overall_result ?? "null"}, expected ${expected.review ?? "null"}`,
    ),
  );
  const approved = plan.replans.filter((r) => r.approved).length;
  checks.push(
    check(
      "plan_replans",
      plan.replans.length === expected.replans.asked && approved === expected.replans.approved,
      `${plan.replans.length} re-plan(s) asked, ${approved} approved; expected ${expected.replans.asked} and ${expected.replans.approved}`,
    ),
  );
  checks.push(gradeTaskLinks(run, plan));
  return checks;
}

function gradeVerify(plan: PlanRun, expected: ExpectedPlan, landed: PlanRun["tasks"]): Check {
  const verify = plan.verify;
  const result = verify?.overall_result ?? null;
  if (result !== expected.verify)
    return check(
      "plan_verify",
      false,
      `verify is ${result ?? "null"}, expected ${expected.verify ?? "null"}`,
    );
  if (!verify) return check("plan_verify", true, "");
  const seams = verify.checks.filter((c) => c.kind === "seam").map((c) => c.plan_task_id);
  const regression = verify.checks.filter((c) => c.kind === "regression");
  return checkProblems("plan_verify", [
    verify.tree_commit !== landed.at(-1)?.commit &&
      `verify ran on ${verify.tree_commit.slice(0, 10)}, not on the last landed commit`,
    JSON.stringify(seams) !== JSON.stringify(landed.map((t) => t.plan_task_id)) &&
      `verify re-ran the seams of ${seams.join(", ") || "no task"}, not of every landed task (${landed.map((t) => t.plan_task_id).join(", ")})`,
    regression.length !== 1 && `verify ran the regression suite ${regression.length} time(s), not once`,
    verify.overall_result === "pass" &&
      verify.checks.some((c) => c.envelope.overall_result !== "pass") &&
      "verify says pass although one of its checks did not pass",
  ]);
}

/** Each task that ran: its own iterator_run.json says the verdict, commit and attempts plan_run.json records. */
function gradeTaskLinks(run: ScenarioRun, plan: PlanRun): Check {
  const problems: string[] = [];
  for (const t of plan.tasks) {
    if (t.status === "skipped" || t.status === "pending") continue;
    const file = join(run.repo ?? "", t.iterate_task_dir, "iterator_run.json");
    if (!existsSync(file)) {
      problems.push(`${t.plan_task_id}: ${t.iterate_task_dir} has no iterator_run.json`);
      continue;
    }
    const own = IteratorRun.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!own.success) {
      problems.push(`${t.plan_task_id}: its iterator_run.json does not fit its schema`);
      continue;
    }
    const terminal = own.data.terminal;
    if (terminal?.verdict !== t.verdict)
      problems.push(
        `${t.plan_task_id}: plan says ${t.verdict}, its task says ${terminal?.verdict ?? "nothing"}`,
      );
    // Only a landed task's commit is recorded: an exhausted task's unverified commit never is.
    if (t.status === "landed" && (terminal?.commit ?? null) !== t.commit)
      problems.push(
        `${t.plan_task_id}: plan records commit ${t.commit}, its task ${terminal?.commit ?? null}`,
      );
    if (own.data.attempts.length !== t.attempts)
      problems.push(
        `${t.plan_task_id}: plan counts ${t.attempts} attempt(s), its task ${own.data.attempts.length}`,
      );
  }
  return checkProblems("plan_task_links", problems);
}
