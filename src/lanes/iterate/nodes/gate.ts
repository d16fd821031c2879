import {
  type AttemptSummary,
  CoderReport,
  isCriticJudged,
  Lesson,
  attemptId as toAttemptId,
  VerifierEnvelope,
  VerifierName,
} from "../../../artifacts/schemas/index.js";
import { nowIso } from "../../../util/time.js";
import { completionGate, verdictLine } from "../../../verify/index.js";
import { commitAll } from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { recordAttempt, terminate } from "../lane/run-record.js";
import { stepsMarkdown } from "../markdown.js";
import { MAX_REPLANS } from "./replan.js";

/**
 * The completion gate (seeds/03): reads the attempt's envelopes back from disk (the artifacts are
 * the truth, not in-memory results) and passes only when all five conditions hold.
 */
export const gate: NodeBody = async (state, deps) => {
  const attemptId = toAttemptId(state.judgeAttempt);
  const envelopes: VerifierEnvelope[] = [];
  for (const name of VerifierName.options) {
    const envelope = await deps.store.readAttemptJson(attemptId, `verifiers/${name}.json`, VerifierEnvelope);
    if (envelope) envelopes.push(envelope);
  }
  const report = await deps.store.readAttemptJson(attemptId, "coder_report.json", CoderReport);
  if (!report) throw new Error(`gate: ${attemptId}/coder_report.json is missing`);
  const verdict = completionGate(envelopes, {
    attemptId,
    requireRegression: deps.options.testCommand !== null,
  });
  const planInvalid = envelopes.some(
    (e) => e.verifier === "critic" && isCriticJudged(e.native_payload) && e.native_payload.plan_invalid,
  );

  const summary: AttemptSummary = {
    attempt_id: attemptId,
    judge_attempt: state.judgeAttempt,
    timeout_attempts: state.timeoutAttempt,
    coder_status: report.status,
    verdict: verdict.result,
    summary: verdictLine(verdict),
    respawn_reason: null,
    verifier_refs: envelopes.map((e) => ({
      verifier: e.verifier,
      overall_result: e.overall_result,
      path: `attempts/${attemptId}/verifiers/${e.verifier}.json`,
    })),
    coder_report_ref: `attempts/${attemptId}/coder_report.json`,
    gate: verdict,
    started_at: report.started_at,
    duration_ms: Date.now() - Date.parse(report.started_at),
    usage: deps.gateway.usage().by_attempt[attemptId] ?? {
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      cost_usd: 0,
      calls: 0,
    },
  };
  await recordAttempt(deps.store, summary, deps.gateway);

  if (verdict.result === "pass") {
    const caveats = verdict.caveats.length
      ? ` (not checked: ${verdict.caveats.map((c) => c.verifier).join(", ")})`
      : "";
    return { goto: "commit", update: { gateResult: "pass" }, line: `${attemptId} pass${caveats}`, attemptId };
  }
  const reasons = verdict.reasons.join("; ");
  if (planInvalid && deps.options.interactive && state.replans < MAX_REPLANS) {
    return {
      goto: "replan",
      update: { gateResult: "fail" },
      line: `${attemptId} plan_invalid; asking to re-plan`,
      ok: false,
    };
  }
  if (planInvalid) {
    const reason = `the critic judged the task's assumptions wrong (plan_invalid) in ${attemptId}: ${reasons}. Re-frame the request with the missing facts.`;
    await terminate(deps.store, deps.gateway, {
      verdict: "blocked",
      reason,
      branch: state.branch,
      gate: verdict,
    });
    return {
      goto: "__end__",
      update: { gateResult: "fail" },
      line: `${attemptId} plan_invalid`,
      ok: false,
      runState: "blocked",
    };
  }
  if (state.judgeAttempt < deps.options.maxJudgeAttempts) {
    return {
      goto: "repair",
      update: { gateResult: "fail" },
      line: `${attemptId} fail: ${reasons}`,
      ok: false,
      attemptId,
    };
  }
  // Out of attempts: the last failure is still recorded for whoever picks the task up (a person or
  // a later --resume with more attempts). No model call: the verifiers' own summaries say it.
  const failed = envelopes.filter((e) => e.overall_result === "fail" || e.overall_result === "error");
  await deps.store.appendJsonl("lessons.jsonl", Lesson, {
    attempt_id: attemptId,
    lesson: `Last attempt failed verification: ${reasons}`,
    failed_verifiers: failed.map((e) => e.verifier),
    at: nowIso(),
  });
  await deps.store.writeText(
    "steps_to_complete_the_task.md",
    stepsMarkdown(
      attemptId,
      "attempts exhausted; the unverified work is committed on the task branch",
      failed.map((e) => `Make the ${e.verifier} verifier pass: ${e.summary}`),
    ),
  );
  // Keep the work on the branch, clearly labelled as not verified.
  const commit = await commitAll(
    state.worktree,
    `devflow(${state.taskId}): unverified work after ${state.judgeAttempt} attempt(s)\n\nNot completed: ${reasons}`,
  );
  const reason = `${state.judgeAttempt} judge attempt(s) used without passing the completion gate; last: ${reasons}`;
  await terminate(deps.store, deps.gateway, {
    verdict: "exhausted",
    reason,
    branch: state.branch,
    commit,
    gate: verdict,
  });
  return {
    goto: "__end__",
    update: { gateResult: "fail" },
    line: `${attemptId} fail; attempts exhausted`,
    ok: false,
    runState: "exhausted",
  };
};
