import type { PlanTaskRun } from "../../artifacts/schemas/index.js";
import { planTaskId, taskDirLabel } from "../../home/index.js";

/**
 * A plan task not run yet, as plan_run.json records it: at the start of a plan and for the tasks a
 * re-plan writes (`replan` is that re-plan's number, `suffix` its part of the iterate task id).
 */
export function pendingTask(
  planId: string,
  task: { id: string; title: string; request: string },
  replan?: { number: number; suffix: string },
): PlanTaskRun {
  const iterateTaskId = planTaskId(planId, replan ? replan.suffix : task.id);
  return {
    plan_task_id: task.id,
    title: task.title,
    request: task.request,
    status: "pending",
    iterate_task_id: iterateTaskId,
    iterate_task_dir: taskDirLabel(iterateTaskId),
    base_commit: null,
    commit: null,
    verdict: null,
    attempts: 0,
    reason: null,
    ...(replan ? { replan: replan.number } : {}),
  };
}
