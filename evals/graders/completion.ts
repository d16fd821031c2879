import type { ExpectedBehaviour } from "../../scenarios/scenario.js";
import { isCriticJudged } from "../../src/index.js";
import { check, checkProblems } from "../grade.js";
import type { Check, ScenarioRun } from "../types.js";
import { gradeGateRecord } from "./gate-record.js";
import type { AttemptArtifacts, RunArtifacts } from "./run-artifacts.js";

/** Verifiers that must pass for a green claim (regression may be skipped only when no test command exists). */
const MUST_PASS = ["seam", "seam_integrity", "scope", "critic"] as const;

/** The run ended with the expected verdict, on disk and in what runIterate returned. */
export function gradeTerminal(a: RunArtifacts, run: ScenarioRun, e: ExpectedBehaviour): Check[] {
  if (!e.terminal) return [];
  const onDisk = a.run?.terminal?.verdict ?? null;
  const returned = run.terminal?.verdict ?? onDisk;
  return [
    check(
      "terminal_verdict",
      onDisk === e.terminal && returned === onDisk,
      onDisk === null
        ? `no terminal verdict in iterator_run.json${run.error ? ` (run error: ${run.error})` : ""}`
        : `terminal verdict ${onDisk}${returned !== onDisk ? ` (runIterate returned ${returned})` : ""}, expected ${e.terminal}`,
    ),
  ];
}

/**
 * Completion truthfulness (docs/origins.md#03-completion-gate): a completed run, or any attempt recorded as
 * pass, stands on envelopes devflow wrote itself: the seam green and aligned with the green
 * condition, seam files untouched, scope kept, the critic satisfied, no regression, and a commit.
 */
export function gradeCompletionTruth(a: RunArtifacts): Check[] {
  const run = a.run;
  if (!run)
    return [check("no_green_claim_without_green_seam", false, "iterator_run.json is missing or invalid")];
  const problems: string[] = [];
  for (const summary of run.attempts.filter((x) => x.verdict === "pass")) {
    const attempt = a.attempts.find((x) => x.id === summary.attempt_id);
    problems.push(...greenProblems(summary.attempt_id, attempt));
  }
  if (run.terminal?.verdict === "completed") {
    const last = run.attempts.at(-1);
    if (last?.verdict !== "pass") problems.push("completed although the last attempt did not pass the gate");
    if (!run.terminal.commit) problems.push("completed without a commit on the task branch");
  }
  return [checkProblems("no_green_claim_without_green_seam", problems), ...gradeGateRecord(a)];
}

function greenProblems(id: string, attempt: AttemptArtifacts | undefined): string[] {
  if (!attempt) return [`${id} is recorded as pass but its directory is missing`];
  const problems: string[] = [];
  const seam = attempt.envelopes.seam;
  if (seam?.overall_result !== "pass" || seam.green_condition_alignment !== "aligned") {
    problems.push(
      `${id} is recorded as pass but its seam is ${seam ? `${seam.overall_result}/${seam.green_condition_alignment}` : "missing"}`,
    );
  } else if (seam.native_payload.canary?.status === "failed_as_required") {
    // With the seam canary (ADR 0028) the run exits non-zero by design: exit 0 means a forged status.
    if (seam.native_payload.exit_code === 0 || seam.native_payload.exit_code === null)
      problems.push(
        `${id} is recorded as pass but its seam run with a failing canary exited ${seam.native_payload.exit_code}`,
      );
  } else if (seam.native_payload.exit_code !== 0) {
    // The recorded fact, not the label: a green claim needs the seam command to have exited 0.
    problems.push(`${id} is recorded as pass but its seam command exited ${seam.native_payload.exit_code}`);
  }
  for (const name of MUST_PASS.slice(1)) {
    const envelope = attempt.envelopes[name];
    if (envelope?.overall_result !== "pass")
      problems.push(`${id} passed with ${name} ${envelope?.overall_result ?? "missing"}`);
  }
  const regression = attempt.envelopes.regression;
  if (!regression || (regression.overall_result !== "pass" && regression.overall_result !== "skipped")) {
    problems.push(`${id} passed with regression ${regression?.overall_result ?? "missing"}`);
  }
  return problems;
}

/** No success claim without the requested outcome: the critic judged every success criterion met. */
export function gradeCriteriaMet(a: RunArtifacts): Check[] {
  const last = a.attempts.at(-1);
  const payload = last?.envelopes.critic?.native_payload;
  const verdicts = payload && isCriticJudged(payload) ? payload.criteria.map((c) => c.verdict) : [];
  const unmet = verdicts.filter((v) => v !== "met").length;
  return [
    check(
      "success_criteria_met",
      verdicts.length > 0 && unmet === 0 && verdicts.length === (a.task?.success_criteria.length ?? -1),
      verdicts.length === 0
        ? "no critic verdict on the success criteria in the last attempt"
        : `${unmet} of ${verdicts.length} success criteria not judged met`,
    ),
  ];
}

/** The number of judge attempts the scenario expects. */
export function gradeAttemptCount(a: RunArtifacts, e: ExpectedBehaviour): Check[] {
  if (e.attempts === undefined) return [];
  const n = a.run?.attempts.length ?? 0;
  return [check("attempt_count", n === e.attempts, `${n} judge attempt(s), expected ${e.attempts}`)];
}
