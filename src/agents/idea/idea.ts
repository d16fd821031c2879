import type { ConversationTurn as Turn } from "../../artifacts/schemas/index.js";
import { IdeaPlan } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { loadPrompt } from "../../util/prompts.js";
import { repoMap } from "../../workspace/index.js";
import { askStructured, renderTurns } from "../kit/index.js";

/**
 * What the model must answer. Beyond the artifact's shape: tasks are numbered T1, T2, … in order
 * and depend only on earlier tasks, so a later plan runner can execute them one by one. Kept out of
 * the artifact schema so zod and the generated JSON Schema keep agreeing.
 */
export const PlanAnswer = IdeaPlan.superRefine((plan, ctx) => {
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
 * The idea agent: one structured call that plans a request too broad for the iterate lane. Every
 * proposed task is shaped to be handed to the iterate lane later (one of its task types, a
 * self-contained request, a few observable criteria). The idea lane (src/lanes/intake/idea.ts)
 * records the brief.
 */
export async function askIdeaPlan(input: {
  gateway: ModelGateway;
  /** A git repository (already checked); its map is shown to the model. */
  repoRoot: string;
  /** The request, trimmed and non-empty. */
  request: string;
  priorTurns: Turn[];
}): Promise<IdeaPlan> {
  const turns = renderTurns(input.priorTurns);
  const map = await repoMap(input.repoRoot, { maxFiles: 300 });
  return askStructured({
    gateway: input.gateway,
    role: "idea",
    name: "idea_brief",
    description: "A planning brief whose tasks each fit the iterate lane",
    schema: PlanAnswer,
    system: loadPrompt("idea"),
    input: [`## Request\n${input.request}`, turns && `## Prior turns\n${turns}`, `## Repository map\n${map}`]
      .filter(Boolean)
      .join("\n\n"),
  });
}
