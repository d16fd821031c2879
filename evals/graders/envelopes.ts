import { VerifierName } from "../../src/index.js";
import { check, checkProblems } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/**
 * Verifier envelopes stay parseable across verifier types: every file under
 * attempts/<id>/verifiers/ validates as the one shared envelope (ajv, on load), names its own
 * verifier and attempt, keeps tool detail under native_payload, and every attempt that was
 * verified has all five verifiers.
 */
export function gradeEnvelopes(a: RunArtifacts): Check[] {
  const problems: string[] = [];
  for (const attempt of a.attempts) {
    if (attempt.envelopeFiles.length === 0) continue;
    for (const file of attempt.envelopeFiles) {
      const name = file.replace(/\.json$/, "");
      const envelope = attempt.envelopes[name];
      if (!envelope) {
        problems.push(`attempts/${attempt.id}/verifiers/${file} is not a valid envelope`);
        continue;
      }
      if (envelope.verifier !== name)
        problems.push(`${attempt.id}/${file} says verifier ${envelope.verifier}`);
      if (envelope.attempt_id !== attempt.id)
        problems.push(`${attempt.id}/${file} says attempt ${envelope.attempt_id}`);
    }
    const absent = VerifierName.options.filter((n) => !attempt.envelopes[n]);
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
 * that condition, a green seam reports `aligned` and a red one `misaligned`.
 */
export function gradeGreenConditionAlignment(a: RunArtifacts): Check[] {
  const condition = a.observation?.expected_green_condition ?? null;
  const problems: string[] = [];
  for (const attempt of a.attempts) {
    const seam = attempt.envelopes.seam;
    if (!seam) continue;
    if (seam.native_payload.expected_green_condition !== condition)
      problems.push(`${attempt.id} seam envelope does not cite the observation's green condition`);
    const expected =
      seam.overall_result === "pass" ? "aligned" : seam.overall_result === "fail" ? "misaligned" : "unknown";
    if (seam.green_condition_alignment !== expected)
      problems.push(`${attempt.id} seam ${seam.overall_result} reports ${seam.green_condition_alignment}`);
  }
  if (a.attempts.every((x) => !x.envelopes.seam)) problems.push("no seam verdict in any attempt");
  return [checkProblems("green_condition_alignment", problems)];
}
