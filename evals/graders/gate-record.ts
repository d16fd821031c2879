import { execFileSync } from "node:child_process";
import type { GateVerdict, VerifierName } from "../../src/index.js";
import { checkProblems } from "../grade.js";
import type { Check } from "../types.js";
import type { AttemptArtifacts, RunArtifacts } from "./run-artifacts.js";

/**
 * The record does not lie (issue: "never claim a check that did not run"). Every judged attempt
 * carries the gate's typed verdict; that verdict agrees with the envelopes on disk (each result it
 * lists is the one its envelope says, a pass has no failing check and names every skipped one as
 * a caveat); the terminal of a completed or exhausted run carries the deciding verdict unchanged;
 * and the completion commit's message names exactly the verifiers that passed and every caveat.
 * All of it is re-read from the files and from git, not from what the lane returned.
 */
export function gradeGateRecord(a: RunArtifacts): Check[] {
  const run = a.run;
  if (!run) return [];
  const problems: string[] = [];
  for (const summary of run.attempts) {
    const gate = summary.gate;
    if (!gate) {
      problems.push(`${summary.attempt_id} has no gate verdict in iterator_run.json`);
      continue;
    }
    if (gate.result !== summary.verdict)
      problems.push(
        `${summary.attempt_id} is recorded as ${summary.verdict} but its gate said ${gate.result}`,
      );
    const attempt = a.attempts.find((x) => x.id === summary.attempt_id);
    problems.push(...verdictAgainstEnvelopes(summary.attempt_id, gate, attempt));
  }
  const terminal = run.terminal;
  if (terminal && (terminal.verdict === "completed" || terminal.verdict === "exhausted")) {
    const deciding = run.attempts.at(-1)?.gate;
    if (!terminal.gate) problems.push(`the ${terminal.verdict} terminal carries no gate verdict`);
    else if (JSON.stringify(terminal.gate) !== JSON.stringify(deciding))
      problems.push("the terminal's gate verdict differs from the last attempt's");
    if (terminal.verdict === "completed" && terminal.gate?.result !== "pass")
      problems.push("completed without a passing gate verdict");
    if (terminal.verdict === "completed" && terminal.commit && terminal.gate)
      problems.push(...commitMessageProblems(run.workspace.worktree, terminal.commit, terminal.gate));
  }
  return [checkProblems("gate_verdict_recorded_honestly", problems)];
}

function verdictAgainstEnvelopes(
  id: string,
  gate: GateVerdict,
  attempt: AttemptArtifacts | undefined,
): string[] {
  if (!attempt) return [`${id} has a gate verdict but no attempt directory`];
  const problems: string[] = [];
  for (const c of gate.checks) {
    const envelope = attempt.envelopes[c.verifier];
    if (envelope?.overall_result !== c.overall_result)
      problems.push(
        `${id} gate read ${c.verifier} ${c.overall_result}, its envelope says ${envelope?.overall_result ?? "nothing"}`,
      );
  }
  if (gate.result !== "pass") return problems;
  const bad = gate.checks.filter((c) => c.overall_result === "fail" || c.overall_result === "error");
  if (bad.length > 0)
    problems.push(`${id} passed the gate with ${bad.map((c) => c.verifier).join(", ")} failing`);
  const caveated = new Set(gate.caveats.map((c) => c.verifier));
  for (const c of gate.checks.filter((x) => x.overall_result === "skipped" && !caveated.has(x.verifier)))
    problems.push(`${id} passed with ${c.verifier} skipped and no caveat saying so`);
  return problems;
}

const VERIFIED = /^Verified by devflow: (.+) passed\.$/m;

function commitMessageProblems(worktree: string, commit: string, gate: GateVerdict): string[] {
  let message: string;
  try {
    message = execFileSync("git", ["log", "-1", "--format=%B", commit], { cwd: worktree, encoding: "utf8" });
  } catch (error) {
    return [
      `could not read commit ${commit.slice(0, 10)}: ${error instanceof Error ? error.message : error}`,
    ];
  }
  const claimed = VERIFIED.exec(message)?.[1]?.split(/, | and /) ?? [];
  const passed: VerifierName[] = gate.checks
    .filter((c) => c.overall_result === "pass")
    .map((c) => c.verifier);
  const problems: string[] = [];
  const overclaimed = claimed.filter((name) => !passed.includes(name as VerifierName));
  if (overclaimed.length > 0)
    problems.push(
      `the commit message claims ${overclaimed.join(", ")} passed, which the gate did not record`,
    );
  const unnamed = passed.filter((name) => !claimed.includes(name));
  if (unnamed.length > 0) problems.push(`the commit message does not name ${unnamed.join(", ")} as passed`);
  for (const c of gate.caveats) {
    if (!message.includes(`${c.verifier}: ${c.caveat}`))
      problems.push(`the commit message omits the caveat on ${c.verifier}`);
  }
  return problems;
}
