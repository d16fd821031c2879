import type { IdeaBrief } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { redactSecrets, secretsFromEnv } from "../../util/redact.js";
import { askStructured } from "../kit/index.js";
import { CriticVerdict } from "./critic-verdict.js";
import { budgetDiff } from "./diff-budget.js";

/** Bytes of the plan diff the reviewer sees; the full diff is named by path. */
export const PLAN_REVIEW_DIFF_BYTES = 24 * 1024;

/** What the plan review judges, in order: the brief's goals, then every task's success criteria. */
export function planReviewCriteria(brief: Pick<IdeaBrief, "goals" | "tasks">): string[] {
  return [
    ...brief.goals.map((goal) => `Goal: ${goal}`),
    ...brief.tasks.flatMap((task) => task.success_criteria.map((c) => `${task.id} (${task.title}): ${c}`)),
  ];
}

/**
 * The compose lane's Review (ADR 0055): one structured critic call over the whole plan diff,
 * against the brief's goals and every task's criteria. The verdict is typed (`CriticVerdict`);
 * devflow, not the model, decides what it means for the plan.
 */
export function askPlanReview(input: {
  gateway: ModelGateway;
  brief: Pick<IdeaBrief, "title" | "problem" | "goals" | "tasks">;
  diff: string;
  diffPath: string;
  /** devflow's own Verify summary, one line per check. */
  verifyLines: string[];
}): Promise<CriticVerdict> {
  const criteria = planReviewCriteria(input.brief);
  const system = fillPrompt(loadPrompt("critic", "plan-review.md"), {
    title: input.brief.title,
    problem: input.brief.problem,
    criteria: criteria.map((c, i) => `${i + 1}. ${c}`).join("\n"),
  });
  // The diff is the coders' text: a secret in it never reaches the model (ADR 0030), as in the critic.
  const secrets = secretsFromEnv(process.env);
  const shown = budgetDiff(redactSecrets(input.diff, secrets), PLAN_REVIEW_DIFF_BYTES, input.diffPath);
  const user = [
    "## devflow's checks on the final tree",
    input.verifyLines.map((l) => `- ${redactSecrets(l, secrets)}`).join("\n") || "- (none)",
    `## Changed files\n${shown.files.map((f) => `- ${f}`).join("\n") || "- (none)"}`,
    `## Diff (plan base to final commit; full diff: ${input.diffPath})\n\`\`\`diff\n${shown.text}\n\`\`\``,
  ].join("\n\n");
  return askStructured({
    gateway: input.gateway,
    role: "critic",
    name: "critic_verdict",
    description: "One verdict per criterion of the plan, blockers, and whether the plan is invalid",
    schema: CriticVerdict,
    system,
    input: user,
  });
}
