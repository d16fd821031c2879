import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { ConversationTurn as Turn } from "../../artifacts/schemas/index.js";
import { type HandoffSource, type IdeaBrief, IdeaPlan } from "../../artifacts/schemas/index.js";
import { claimRecordId, writeRecord } from "../../home/index.js";
import { UsageError } from "../../lanes/iterate/errors.js";
import type { ModelGateway } from "../../models/contract.js";
import { renderTurns } from "../../util/prior-turns.js";
import { loadPrompt } from "../../util/prompts.js";
import { nowIso } from "../../util/time.js";
import { assertGitRepo, repoMap } from "../../workspace/index.js";

/**
 * What the model must answer. Beyond the artifact's shape: tasks are numbered T1, T2, … in order
 * and depend only on earlier tasks, so a later plan runner can execute them one by one. Kept out of
 * the artifact schema so zod and the generated JSON Schema keep agreeing.
 */
const PlanAnswer = IdeaPlan.superRefine((plan, ctx) => {
  plan.tasks.forEach((task, i) => {
    const expected = `T${i + 1}`;
    if (task.id !== expected)
      ctx.addIssue({
        code: "custom",
        path: ["tasks", i, "id"],
        message: `must be "${expected}" (number tasks in order)`,
      });
    const earlier = plan.tasks.slice(0, i).map((t) => t.id);
    for (const dep of task.depends_on) {
      if (!earlier.includes(dep))
        ctx.addIssue({
          code: "custom",
          path: ["tasks", i, "depends_on"],
          message: `"${dep}" is not an earlier task (tasks may depend only on tasks listed before them)`,
        });
    }
  });
});

/**
 * The idea lane: a planning brief for a request too broad for the iterate lane, written to
 * `.devflow/idea/<id>/idea_brief.json`. Every proposed task is shaped to be handed to the iterate
 * lane later (one of its task types, a self-contained request, a few observable criteria).
 */
export async function runIdea(input: {
  gateway: ModelGateway;
  repoRoot: string;
  request: string;
  priorTurns: Turn[];
  /** Set when the iterate lane promoted the request here. */
  handoff?: HandoffSource;
}): Promise<{ id: string; brief: IdeaBrief; artifactPath: string }> {
  const request = input.request.trim();
  if (!request) throw new UsageError("the request is empty: describe the feature to plan");
  const repoRoot = await assertGitRepo(input.repoRoot);
  const turns = renderTurns(input.priorTurns);
  const map = await repoMap(repoRoot, { maxFiles: 300 });
  const plan = await input.gateway.structured({
    role: "idea",
    name: "idea_brief",
    description: "A planning brief whose tasks each fit the iterate lane",
    schema: PlanAnswer,
    messages: [
      new SystemMessage(loadPrompt("idea")),
      new HumanMessage(
        [`## Request\n${request}`, turns && `## Prior turns\n${turns}`, `## Repository map\n${map}`]
          .filter(Boolean)
          .join("\n\n"),
      ),
    ],
  });
  const id = claimRecordId(repoRoot, "idea", plan.title || request);
  const brief: IdeaBrief = {
    artifact: "idea_brief",
    id,
    request,
    prior_turns: input.priorTurns,
    ...plan,
    source_handoff: input.handoff ?? null,
    model: input.gateway.modelName("idea"),
    created_at: nowIso(),
  };
  const artifactPath = await writeRecord(repoRoot, "idea", brief);
  return { id, brief, artifactPath };
}
