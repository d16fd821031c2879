import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { RepairGuidance } from "../../../agents/iterator/repair-guidance.js";
import {
  CoderReport,
  Lesson,
  attemptId as toAttemptId,
  VerifierEnvelope,
  VerifierName,
} from "../../../artifacts/schemas/index.js";
import { loadPrompt } from "../../../util/prompts.js";
import { nowIso } from "../../../util/time.js";
import { excerpt } from "../../../util/truncate.js";
import type { NodeBody } from "../lane/define-node.js";
import { bookUsage, pushState, terminate, updateRun } from "../lane/run-record.js";
import { bulletList, stepsMarkdown } from "../markdown.js";

/** Budgets for what the repair model reads: excerpts, with the full text kept on disk. */
const DIFF_BUDGET = 6 * 1024;
const CLAIM_BUDGET = 2 * 1024;
const SUMMARY_BUDGET = 1024;

/**
 * After a failed gate: one lesson into lessons.jsonl, steps_to_complete_the_task.md for the next
 * attempt, the respawn reason on the attempt record, then a new judge attempt.
 */
export const repair: NodeBody = async (state, deps) => {
  const attemptId = toAttemptId(state.judgeAttempt);
  deps.gateway.setAttempt(attemptId);
  const task = await deps.store.read("task_artifact");
  const observation = await deps.store.read("observation_artifact");
  if (!task || !observation) throw new Error("repair: task or observation artifact is missing");
  const failed: VerifierEnvelope[] = [];
  for (const name of VerifierName.options) {
    const e = await deps.store.readAttemptJson(attemptId, `verifiers/${name}.json`, VerifierEnvelope);
    if (e && (e.overall_result === "fail" || e.overall_result === "error")) failed.push(e);
  }
  const report = await deps.store.readAttemptJson(attemptId, "coder_report.json", CoderReport);
  const lessons = await deps.store.readJsonl("lessons.jsonl", Lesson);
  const diff = (await deps.store.readText(`attempts/${attemptId}/cumulative.diff.patch`)) ?? "";

  const guidance = await deps.gateway.structured({
    role: "iterator",
    name: "repair_guidance",
    description: "What the next coder attempt needs to pass verification",
    schema: RepairGuidance,
    attemptId,
    messages: [
      new SystemMessage(loadPrompt("iterator")),
      new HumanMessage(
        [
          `## Task\n${task.title}\n\nSuccess criteria:\n${bulletList(task.success_criteria)}\n\nScope: ${task.scope_boundary.statement}`,
          `## Failing seam\n\`${observation.failing_seam?.command}\`; green when: ${observation.expected_green_condition ?? "exit 0"}`,
          `## Failed verifiers (${attemptId})\n${failed
            .map((e) => `- ${e.verifier} (${e.overall_result}): ${excerpt(e.summary, SUMMARY_BUDGET).text}`)
            .join("\n")}`,
          `## Change so far (excerpt; full diff at attempts/${attemptId}/cumulative.diff.patch)\n${excerpt(diff, DIFF_BUDGET).text}`,
          `## Coder's own claim (not trusted)\n${excerpt(report?.final_message ?? "", CLAIM_BUDGET).text}`,
          `## Earlier lessons\n${bulletList(lessons.map((l) => `${l.attempt_id}: ${l.lesson}`))}`,
        ].join("\n\n"),
      ),
    ],
  });

  await deps.store.appendJsonl("lessons.jsonl", Lesson, {
    attempt_id: attemptId,
    lesson: guidance.lesson,
    failed_verifiers: failed.map((e) => e.verifier),
    at: nowIso(),
  });
  await deps.store.writeText(
    "steps_to_complete_the_task.md",
    stepsMarkdown(attemptId, guidance.respawn_reason, guidance.remaining_steps),
  );

  if (!guidance.still_viable) {
    const reason = `not viable within scope after ${attemptId}: ${guidance.respawn_reason}`;
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
    return { goto: "__end__", line: `${attemptId} not viable`, ok: false, runState: "blocked" };
  }
  await updateRun(deps.store, (run) => {
    const attempt = run.attempts.find((a) => a.attempt_id === attemptId);
    if (attempt) {
      attempt.respawn_reason = guidance.respawn_reason;
      // The repair call belongs to this attempt's cost too; the gate booked it before that call.
      attempt.usage = deps.gateway.usage().by_attempt[attemptId] ?? attempt.usage;
    }
    bookUsage(run, deps.gateway);
    pushState(run, "needs_respawn", `${attemptId} failed: ${guidance.respawn_reason}`);
  });
  return {
    goto: "code",
    update: { judgeAttempt: state.judgeAttempt + 1, timeoutAttempt: 1, gateResult: "pending" },
    line: `lesson + steps for ${toAttemptId(state.judgeAttempt + 1)}`,
    attemptId,
    runState: "needs_respawn",
  };
};
