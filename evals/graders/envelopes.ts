import { type SeamEnvelope, type SeamPayload, VerifierName } from "../../src/index.js";
import { check, checkProblems } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/**
 * Verifier envelopes stay parseable across verifier types: every file under
 * attempts/<id>/verifiers/ validates as the one shared envelope (ajv, on load), names its own
 * verifier and attempt, keeps tool detail under native_payload, and every attempt that was
 * verified has all five verifiers (six when the task has extra verifiers, ADR 0056).
 */
export function gradeEnvelopes(a: RunArtifacts): Check[] {
  const problems: string[] = [];
  for (const attempt of a.attempts) {
    if (attempt.envelopeFiles.length === 0) continue;
    for (const file of attempt.envelopeFiles) {
      const name = file.replace(/\.json$/, "");
      const envelope = attempt.envelopeByFile[name];
      if (!envelope) {
        problems.push(`attempts/${attempt.id}/verifiers/${file} is not a valid envelope`);
        continue;
      }
      if (envelope.verifier !== name)
        problems.push(`${attempt.id}/${file} says verifier ${envelope.verifier}`);
      if (envelope.attempt_id !== attempt.id)
        problems.push(`${attempt.id}/${file} says attempt ${envelope.attempt_id}`);
    }
    // extra_verifiers runs for a task that has some (ADR 0056): required then, and only then.
    const hasExtra = (a.task?.extra_verifiers?.length ?? 0) > 0;
    const absent = VerifierName.options.filter(
      (n) => !attempt.envelopes[n] && (hasExtra || n !== "extra_verifiers"),
    );
    if (absent.length > 0) problems.push(`${attempt.id} lacks ${absent.join(", ")}`);
  }
  const bad = a.problems.filter((p) => p.includes("/verifiers/"));
  return [
    check(
      "verifier_envelopes_normalized",
      problems.length === 0 && bad.length === 0,
      [...problems, ...bad].join("; "),
    ),
  ];
}

/**
 * The seam verifier judges against the observation's own green condition: its payload carries
 * that condition, and its verdict agrees with the facts its typed payload records (the seam
 * command's exit code), not merely with its own result label: a seam that ran and exited 0 is a
 * `pass`, `aligned`; one that ran and failed is a `fail`, `misaligned`; one that could not run
 * (timeout, abort, spawn failure) is an `error` of `unknown` alignment.
 */
export function gradeGreenConditionAlignment(a: RunArtifacts): Check[] {
  const condition = a.observation?.expected_green_condition ?? null;
  const problems: string[] = [];
  for (const attempt of a.attempts) {
    const seam = attempt.envelopes.seam;
    if (!seam) continue;
    const facts = seam.native_payload;
    if (facts.expected_green_condition !== condition)
      problems.push(`${attempt.id} seam envelope does not cite the observation's green condition`);
    const [result, alignment] = seamVerdictFromFacts(facts, seam.overall_result);
    if (seam.overall_result !== result)
      problems.push(
        `${attempt.id} seam says ${seam.overall_result} but its command ${facts.exit_code === null ? "did not exit" : `exited ${facts.exit_code}`}`,
      );
    else if (seam.green_condition_alignment !== alignment)
      problems.push(`${attempt.id} seam ${seam.overall_result} reports ${seam.green_condition_alignment}`);
  }
  if (a.attempts.every((x) => !x.envelopes.seam)) problems.push("no seam verdict in any attempt");
  return [checkProblems("green_condition_alignment", problems)];
}

/**
 * The seam verdict the recorded facts support, worked out here rather than taken from devflow: a
 * command that did not finish (timeout, abort, spawn failure) or that the shell could not find
 * (126/127) proves nothing; exit 0 is green; any other exit is red. A run with the seam canary
 * (ADR 0028) exits non-zero by design, its canary being a test that must fail: there a canary that
 * did not fail, or exit 0, is red, and otherwise the exit code cannot tell green from red (the
 * runner's report, cited in evidence_refs, does), so the label stands.
 */
function seamVerdictFromFacts(
  facts: SeamPayload,
  label: SeamEnvelope["overall_result"],
): ["pass" | "fail" | "error", string] {
  const ran = !facts.timed_out && !facts.aborted && facts.spawn_error === null;
  if (!ran || facts.exit_code === 126 || facts.exit_code === 127) return ["error", "unknown"];
  const canary = facts.canary?.status;
  if (canary === "tampered") return ["fail", "misaligned"];
  if (canary === "failed_as_required" && facts.exit_code !== 0)
    return label === "pass" ? ["pass", "aligned"] : ["fail", "misaligned"];
  if (canary !== "failed_as_required" && facts.exit_code === 0) return ["pass", "aligned"];
  return ["fail", "misaligned"];
}
