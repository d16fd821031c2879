import type { IdeaBrief, IdeaPlan } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { askIdeaPlan } from "./idea.js";

/** What the re-planning turn is told (src/lanes/compose/replan.ts decides the rest). */
export interface ReplanInput {
  gateway: ModelGateway;
  repoRoot: string;
  brief: IdeaBrief;
  /** Who judged the plan invalid: a task's critic or the review of the whole plan. */
  source: "task" | "review";
  reason: string;
  /** Plan task ids already landed (kept), then the ones dropped (to revise). */
  landed: string[];
  dropped: string[];
}

/**
 * The PLAN_INVALID re-planning turn (ADR 0055): the idea planner again (role `idea`, same schema and
 * task-numbering rule), told what landed, what was found wrong and which tasks are dropped. Its
 * tasks are the ones still to do, numbered from T1; the compose lane renumbers them after the
 * landed tasks. The model decides only the tasks' content, never which tasks are kept.
 */
export async function askReplan(input: ReplanInput): Promise<IdeaPlan> {
  const line = (id: string) => {
    const task = input.brief.tasks.find((t) => t.id === id);
    return `- ${id} ${task?.title ?? ""}: ${task?.request ?? ""}`;
  };
  const context = fillPrompt(loadPrompt("idea", "replan.md"), {
    source: input.source === "task" ? "by the critic of one task" : "by the review of the whole plan",
    reason: input.reason,
    landed: input.landed.map(line).join("\n") || "(none)",
    dropped: input.dropped.map(line).join("\n") || "(none: every task landed)",
  });
  return askIdeaPlan({
    gateway: input.gateway,
    repoRoot: input.repoRoot,
    request: input.brief.request,
    priorTurns: [{ role: "user", content: context }],
  });
}
