import { z } from "zod";
import type {
  Lesson,
  ObservationArtifact,
  TaskArtifact,
  VerifierEnvelope,
} from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { bulletList } from "../../util/markdown.js";
import { loadPrompt } from "../../util/prompts.js";
import { excerpt } from "../../util/truncate.js";
import { askStructured } from "../kit/index.js";

/** The Iterator model's one judgement call: what the next attempt needs (agents/iterator). */
export const RepairGuidance = z.object({
  lesson: z.string().min(1),
  respawn_reason: z.string().min(1),
  remaining_steps: z.array(z.string().min(1)).min(1),
  still_viable: z.boolean(),
});
export type RepairGuidance = z.infer<typeof RepairGuidance>;

/** Budgets for what the repair model reads: excerpts, with the full text kept on disk. */
const DIFF_BUDGET = 6 * 1024;
const CLAIM_BUDGET = 2 * 1024;
const SUMMARY_BUDGET = 1024;

export interface RepairGuidanceInput {
  gateway: ModelGateway;
  /** The attempt that failed the gate; the call's usage is booked under it. */
  attemptId: string;
  task: TaskArtifact;
  observation: ObservationArtifact;
  /** The attempt's verifiers that failed or errored. */
  failed: readonly VerifierEnvelope[];
  /** The change since the seam (attempts/<id>/cumulative.diff.patch). */
  cumulativeDiff: string;
  /** The coder's final message (a claim, shown as untrusted). */
  coderClaim: string;
  lessons: readonly Lesson[];
}

/**
 * The Iterator: after a failed gate, one structured call that reads bounded excerpts of the
 * evidence and says what the next attempt needs (a lesson, the respawn reason, remaining steps)
 * and whether the task is still viable within its scope.
 */
export function askRepairGuidance(input: RepairGuidanceInput): Promise<RepairGuidance> {
  const { task, observation, attemptId } = input;
  return askStructured({
    gateway: input.gateway,
    role: "iterator",
    name: "repair_guidance",
    description: "What the next coder attempt needs to pass verification",
    schema: RepairGuidance,
    attemptId,
    system: loadPrompt("iterator"),
    input: [
      `## Task\n${task.title}\n\nSuccess criteria:\n${bulletList(task.success_criteria)}\n\nScope: ${task.scope_boundary.statement}`,
      `## Failing seam\n\`${observation.failing_seam?.command}\`; green when: ${observation.expected_green_condition ?? "exit 0"}`,
      `## Failed verifiers (${attemptId})\n${input.failed
        .map((e) => `- ${e.verifier} (${e.overall_result}): ${excerpt(e.summary, SUMMARY_BUDGET).text}`)
        .join("\n")}`,
      `## Change so far (excerpt; full diff at attempts/${attemptId}/cumulative.diff.patch)\n${excerpt(input.cumulativeDiff, DIFF_BUDGET).text}`,
      `## Coder's own claim (not trusted)\n${excerpt(input.coderClaim, CLAIM_BUDGET).text}`,
      `## Earlier lessons\n${bulletList(input.lessons.map((l) => `${l.attempt_id}: ${l.lesson}`))}`,
    ].join("\n\n"),
  });
}
