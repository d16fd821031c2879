import type { GateVerdict } from "../artifacts/schemas/gate-verdict.js";
import type { VerifierName } from "../artifacts/schemas/verifier-envelope.js";
import { GATE_ORDER } from "./completion-gate.js";

/**
 * The words every record uses for a gate verdict (commit message, attempt summary, CLI summary),
 * so none of them can claim a check the verdict does not list as passed.
 */

/** Verifiers the verdict lists as passed, in gate order. */
export function passedVerifiers(verdict: GateVerdict): VerifierName[] {
  const passed = new Set(verdict.checks.filter((c) => c.overall_result === "pass").map((c) => c.verifier));
  return GATE_ORDER.filter((name) => passed.has(name));
}

/** "seam, seam_integrity and scope" */
export function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** One line per caveat: `<verifier>: <what was not checked>`. */
export function caveatLines(verdict: GateVerdict): string[] {
  return verdict.caveats.map((c) => `${c.verifier}: ${c.caveat}`);
}

/** One line for the attempt summary in iterator_run.json. */
export function verdictLine(verdict: GateVerdict): string {
  if (verdict.result === "fail") return verdict.reasons.join("; ");
  const passed = passedVerifiers(verdict);
  // extra_verifiers run only for a task that has some (ADR 0056): "all" means every other one passed.
  const all = GATE_ORDER.every((name) => passed.includes(name) || name === "extra_verifiers");
  const base = all ? "all verifiers passed" : `${joinNames(passed)} passed`;
  return verdict.caveats.length === 0 ? base : `${base}; not checked: ${caveatLines(verdict).join("; ")}`;
}

/** The body of the commit that claims completion: what passed, then what was not checked. */
export function commitBody(verdict: GateVerdict): string {
  const lines = [`Verified by devflow: ${joinNames(passedVerifiers(verdict))} passed.`];
  const caveats = caveatLines(verdict);
  if (caveats.length > 0) lines.push(`Not checked: ${caveats.join("; ")}`);
  return lines.join("\n");
}
