import { join } from "node:path";
import { PlanAnswer } from "../../agents/idea/idea.js";
import { askReplan } from "../../agents/idea/replan.js";
import type {
  IdeaBrief,
  IdeaTask,
  PlanReplan,
  PlanRun,
  PlanTaskRun,
  Usage,
} from "../../artifacts/schemas/index.js";
import { DevflowError } from "../../errors/index.js";
import { keepProposedRevision, keepRecordHistory, writeRecord } from "../../home/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { buildModelGateway } from "../../models/gateway.js";
import { nowIso } from "../../util/time.js";
import { landedTasksProblem } from "./landed-tasks.js";
import type { ComposeLimits } from "./limits.js";
import { pendingTask } from "./pending-task.js";
import type { ComposeSettings, ReplanAsk } from "./settings.js";

/** PLAN_INVALID's outcome: stop (declined, or the bound reached), or the revised tasks to run. */
export type ReplanDecision =
  | {
      kind: "declined" | "exhausted";
      why: string;
      entry: PlanReplan | null;
      /** A planning turn whose revision was then declined still cost its call. */
      usage?: Usage;
    }
  | {
      kind: "replanned";
      why: string;
      entry: PlanReplan;
      brief: IdeaBrief;
      tasks: PlanTaskRun[];
      usage: Usage;
    };

/**
 * PLAN_INVALID (ADR 0055): a task's critic or the review judged the plan's assumptions wrong. devflow,
 * not the model, decides: past `maxReplans` approved re-plans the plan stops (exhausted, no question);
 * otherwise the user is asked (`onReplan`; none = `--no-input` = declined). On approval one planning
 * turn (the idea planner) answers the tasks still to do; they replace every task after the last
 * landed one, renumbered after it, each with an iterate task id of its own (`plan-<id>-r<n>-t<k>`), so
 * a replaced task's folder and branch are never reused. The revised plan is then shown (`onRevision`,
 * ADR 0060 §5): approved as proposed, edited (checked here again: the planner's rules and the landed
 * tasks unchanged; the model's proposal kept as `history/idea_brief.r00<n+1>.proposed.json`) or
 * declined (the plan stops). The brief as it was is kept in its history/ and the revision to run
 * replaces idea_brief.json; landed tasks are never touched.
 */
export async function replan(input: {
  settings: ComposeSettings;
  repoRoot: string;
  run: PlanRun;
  brief: IdeaBrief;
  limits: ComposeLimits;
  source: PlanReplan["source"];
  planTaskId: string | null;
  reason: string;
}): Promise<ReplanDecision> {
  const { settings, repoRoot, run, brief, limits } = input;
  const approvedSoFar = run.replans.filter((r) => r.approved).length;
  const landed = run.tasks.filter((t) => t.status === "landed");
  const dropped = run.tasks.slice(landed.length);
  const judged = input.source === "task" ? `${input.planTaskId}'s critic` : "the review";
  if (approvedSoFar >= limits.maxReplans)
    return {
      kind: "exhausted",
      why: `${judged} judged the plan invalid again after ${approvedSoFar} re-plan(s) (MaxReplans = ${limits.maxReplans}): ${input.reason}`,
      entry: null,
    };
  const number = approvedSoFar + 1;
  const ask: ReplanAsk = {
    planId: run.plan_id,
    source: input.source,
    planTaskId: input.planTaskId,
    reason: input.reason,
    replan: number,
    maxReplans: limits.maxReplans,
    landed: landed.map((t) => t.plan_task_id),
    dropped: dropped.map((t) => t.plan_task_id),
  };
  const base = {
    at: nowIso(),
    source: input.source,
    plan_task_id: input.planTaskId,
    reason: input.reason,
  };
  const approved = settings.onReplan ? await settings.onReplan(ask) : false;
  if (!approved)
    return {
      kind: "declined",
      why: `${judged} judged the plan invalid and re-planning was ${settings.onReplan ? "declined" : "not approved (no one to ask: --no-input)"}: ${input.reason}`,
      entry: { ...base, approved: false, brief_revision: null, replaced: [], added: [] },
    };

  const gateway = await replanGateway(settings, number);
  const answer = await askReplan({
    gateway,
    repoRoot,
    brief,
    source: input.source,
    reason: input.reason,
    landed: ask.landed,
    dropped: ask.dropped,
  });
  await gateway.flush();
  const revised = renumber(answer.tasks, landed.length);
  const landedTasks = brief.tasks.slice(0, landed.length);
  const proposed: IdeaBrief = {
    ...brief,
    tasks: [...landedTasks, ...revised],
    open_questions: answer.open_questions,
    risks: [...new Set([...brief.risks, ...answer.risks])],
  };
  const usage = gateway.usage().total;
  const chosen = settings.onRevision
    ? await settings.onRevision({ ask, brief: proposed, landed: landedTasks })
    : proposed;
  if (!chosen)
    return {
      kind: "declined",
      why: `${judged} judged the plan invalid and the revised plan of re-plan ${number} was declined: ${input.reason}`,
      entry: { ...base, approved: false, brief_revision: null, replaced: [], added: [] },
      usage,
    };
  const next = checkedRevision(proposed, chosen, landedTasks);
  const edited = next !== proposed;
  // The approved plan is brief revision 1; re-plan n writes revision n + 1 and keeps revision n.
  await keepRecordHistory(repoRoot, "idea", run.plan_id, number);
  if (edited) await keepProposedRevision(repoRoot, "idea", proposed, number + 1);
  await writeRecord(repoRoot, "idea", next);
  const kept = next.tasks.slice(landed.length);
  const tasks = kept.map((t) => pendingTask(run.plan_id, t, { number, suffix: `r${number}-${t.id}` }));
  return {
    kind: "replanned",
    why: `re-plan ${number} of ${limits.maxReplans} approved: ${dropped.length} task(s) dropped, ${tasks.length} planned after ${ask.landed.at(-1) ?? "the base"}`,
    entry: {
      ...base,
      approved: true,
      brief_revision: number + 1,
      ...(edited ? { edited: true } : {}),
      replaced: dropped.map((t) => ({
        plan_task_id: t.plan_task_id,
        iterate_task_id: t.iterate_task_id,
        status: t.status,
      })),
      added: tasks.map((t) => t.plan_task_id),
    },
    brief: next,
    tasks,
    usage,
  };
}

/**
 * The revision to run: the proposal itself, or the user's edit of it, which must keep the planner's
 * rules and the landed tasks (the CLI's editor prompt checks the same, this guards the lane).
 */
function checkedRevision(proposed: IdeaBrief, chosen: IdeaBrief, landed: IdeaTask[]): IdeaBrief {
  if (chosen === proposed) return proposed;
  const parsed = PlanAnswer.safeParse(chosen);
  const problem = parsed.success
    ? landedTasksProblem(landed, parsed.data)
    : (parsed.error.issues[0]?.message ?? "not a plan");
  if (problem || !parsed.success)
    throw new DevflowError(
      "BAD_OPTION",
      `the edited re-plan of plan ${proposed.id} is not valid: ${problem}`,
    );
  return { ...proposed, ...parsed.data };
}

/** The model numbers the tasks still to do from T1; they follow the `offset` landed tasks. */
function renumber(tasks: IdeaTask[], offset: number): IdeaTask[] {
  const id = (ref: string) => `T${Number(ref.slice(1)) + offset}`;
  return tasks.map((t) => ({ ...t, id: id(t.id), depends_on: t.depends_on.map(id) }));
}

/** Re-plan n's planning turn: `replan-<n>.json` of the cassette dir when replayed or recorded. */
async function replanGateway(settings: ComposeSettings, number: number): Promise<ModelGateway> {
  if (settings.replanGateway) return settings.replanGateway(number);
  const live =
    settings.mode === "replay" ? null : (await import("../../models/live-chat-model.js")).EndpointChatOpenAI;
  return buildModelGateway(
    {
      mode: settings.mode,
      model: settings.model,
      ...(settings.cassetteDir ? { cassettePath: join(settings.cassetteDir, `replan-${number}.json`) } : {}),
      env: settings.env ?? process.env,
    },
    live,
  );
}
