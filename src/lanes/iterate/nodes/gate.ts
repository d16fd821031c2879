import {
  type AttemptSummary,
  CoderReport,
  type GateVerdict,
  isCriticJudged,
  attemptId as toAttemptId,
} from "../../../artifacts/schemas/index.js";
import { killPoint } from "../../../util/test-kill-point.js";
import { completionGate, verdictLine } from "../../../verify/index.js";
import { commitOnTaskBranch, snapshotTree } from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { tamperFindings } from "../lane/integrity.js";
import { appendLessonOnce } from "../lane/lessons.js";
import { recordAttempt, terminate } from "../lane/run-record.js";
import { stepsMarkdown } from "../markdown.js";
import { recordFailedSalvage, salvageNote } from "../salvage.js";
import { MAX_REPLANS } from "./replan.js";

/**
 * The completion gate (docs/origins.md#03-completion-gate): decides from the verifier results
 * verify handed over in state (the envelopes on disk are the record, ADR 0018) and passes only
 * when all five conditions hold and the tamper check finds nothing: a task dir file, the pinned
 * contract, an envelope or the task branch changed behind devflow's back fails the attempt and
 * stops the run (blocked).
 */
export const gate: NodeBody = async (state, deps) => {
  const attemptId = toAttemptId(state.judgeAttempt);
  const envelopes = state.verifierResults.filter((e) => e.attempt_id === attemptId);
  const report = await deps.store.readAttemptJson(attemptId, "coder_report.json", CoderReport);
  if (!report) throw new Error(`gate: ${attemptId}/coder_report.json is missing`);
  const judged = completionGate(envelopes, {
    attemptId,
    requireRegression: deps.options.testCommand !== null,
    requireExtraVerifiers: state.extraVerifiers.length > 0,
  });
  const tamper = (await tamperFindings(state, deps, attemptId)).map((f) => `tamper: ${f}`);
  const verdict: GateVerdict = tamper.length
    ? { ...judged, result: "fail", reasons: [...tamper, ...judged.reasons] }
    : judged;
  const planInvalid = envelopes.some(
    (e) => e.verifier === "critic" && isCriticJudged(e.native_payload) && e.native_payload.plan_invalid,
  );

  const summary: AttemptSummary = {
    attempt_id: attemptId,
    judge_attempt: state.judgeAttempt,
    timeout_attempts: state.timeoutAttempt,
    coder_status: report.status,
    ...(report.coder_outcome ? { coder_outcome: report.coder_outcome } : {}),
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
  // Keyed by attempt id (replaces the attempt's summary): safe to repeat after a crash.
  await recordAttempt(deps.store, summary, deps.gateway);
  killPoint("gate.attempt-recorded");

  if (tamper.length) {
    // Loud, and final: a record that changed behind devflow's back cannot be judged again.
    const reason = `${attemptId} failed the tamper check: ${tamper.join("; ")}`;
    await terminate(deps.store, deps.gateway, {
      verdict: "blocked",
      reason,
      branch: state.branch,
      gate: verdict,
    });
    return {
      goto: "__end__",
      update: { gateResult: "fail", gateVerdict: verdict },
      line: `${attemptId} tamper: ${tamper.length} finding(s)`,
      ok: false,
      attemptId,
      runState: "blocked",
      detail: { tamper },
    };
  }
  // The coder's own commits on top of the accepted head are accepted with the attempt.
  const accepted = { branchHead: state.coderHead ?? state.branchHead, gateVerdict: verdict };

  if (verdict.result === "pass") {
    const caveats = verdict.caveats.length
      ? ` (not checked: ${verdict.caveats.map((c) => c.verifier).join(", ")})`
      : "";
    const salvaged = salvageNote(report);
    return {
      goto: "commit",
      update: { ...accepted, gateResult: "pass" },
      line: `${attemptId} pass${caveats}${salvaged ? ` (${salvaged})` : ""}`,
      attemptId,
    };
  }
  const reasons = verdict.reasons.join("; ");
  if (planInvalid && deps.options.interactive && state.replans < MAX_REPLANS) {
    return {
      goto: "replan",
      update: { ...accepted, gateResult: "fail" },
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
      update: { ...accepted, gateResult: "fail" },
      line: `${attemptId} plan_invalid`,
      ok: false,
      runState: "blocked",
    };
  }
  if (report.coder_outcome === "timed_out_partial" && state.escalations < deps.options.maxEscalations) {
    // ADR 0026: the timeout escalation applies as to any timeout, with the verifier failure as context.
    const failed = envelopes.filter((e) => e.overall_result === "fail" || e.overall_result === "error");
    await recordFailedSalvage(deps.store, attemptId, failed, reasons);
    return {
      goto: "code",
      update: {
        ...accepted,
        gateResult: "fail",
        timeoutAttempt: state.timeoutAttempt + 1,
        escalations: state.escalations + 1,
      },
      line: `${attemptId} fail after a timeout: ${reasons}; escalating timeout ×${state.timeoutAttempt + 1} (not a judge attempt)`,
      ok: false,
      attemptId,
    };
  }
  if (state.judgeAttempt < deps.options.maxJudgeAttempts) {
    return {
      goto: "repair",
      update: { ...accepted, gateResult: "fail" },
      line: `${attemptId} fail: ${reasons}`,
      ok: false,
      attemptId,
    };
  }
  // Out of attempts: the last failure is still recorded for whoever picks the task up (a person or
  // a later --resume with more attempts). No model call: the verifiers' own summaries say it.
  const failed = envelopes.filter((e) => e.overall_result === "fail" || e.overall_result === "error");
  await appendLessonOnce(deps.store, {
    attempt_id: attemptId,
    source: "exhausted",
    lesson: `Last attempt failed verification: ${reasons}`,
    failed_verifiers: failed.map((e) => e.verifier),
  });
  await deps.store.writeText(
    "steps_to_complete_the_task.md",
    stepsMarkdown(
      attemptId,
      "attempts exhausted; the unverified work is committed on the task branch",
      failed.map((e) => `Make the ${e.verifier} verifier pass: ${e.summary}`),
    ),
  );
  // Keep the work on the branch, clearly labelled as not verified: the tree the verifiers judged.
  const commit = await commitOnTaskBranch({
    ...(deps.options.commitAuthor ? { author: deps.options.commitAuthor } : {}),
    repoRoot: state.repoRoot,
    worktree: state.worktree,
    taskId: state.taskId,
    expectedHead: state.taskRefHead ?? state.baseCommit,
    tree: state.attemptTree ?? (await snapshotTree(state.worktree)),
    message: `devflow(${state.taskId}): unverified work after ${state.judgeAttempt} attempt(s)\n\nNot completed: ${reasons}`,
  });
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
    update: { ...accepted, gateResult: "fail", taskRefHead: commit ?? state.taskRefHead },
    line: `${attemptId} fail; attempts exhausted`,
    ok: false,
    runState: "exhausted",
  };
};
