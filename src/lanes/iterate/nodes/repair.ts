import { askRepairGuidance } from "../../../agents/iterator/repair-guidance.js";
import {
  CoderReport,
  Lesson,
  attemptId as toAttemptId,
  VerifierEnvelope,
  VerifierName,
} from "../../../artifacts/schemas/index.js";
import { killPoint } from "../../../util/test-kill-point.js";
import type { NodeBody } from "../lane/define-node.js";
import { appendLessonOnce } from "../lane/lessons.js";
import { bookUsage, pushState, terminate, updateRun } from "../lane/run-record.js";
import { stepsMarkdown } from "../markdown.js";

/**
 * After a failed gate: the Iterator's guidance (src/agents/iterator), then one lesson into
 * lessons.jsonl, steps_to_complete_the_task.md for the next attempt, the respawn reason on the
 * attempt record, then a new judge attempt.
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

  const guidance = await askRepairGuidance({
    gateway: deps.gateway,
    attemptId,
    task,
    observation,
    failed,
    cumulativeDiff: diff,
    coderClaim: report?.final_message ?? "",
    lessons,
  });

  // Keyed by attempt: a re-run after a crash asks again but never lists the lesson twice (ADR 0033).
  await appendLessonOnce(deps.store, {
    attempt_id: attemptId,
    source: "repair",
    lesson: guidance.lesson,
    failed_verifiers: failed.map((e) => e.verifier),
  });
  killPoint("repair.lesson-appended");
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
