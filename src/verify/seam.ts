import type { SeamEnvelope, SeamPayload } from "../artifacts/schemas/verifier-envelope.js";
import { startEnvelope } from "./envelope.js";
import { commandMissing, runVerifierCommand, type VerifierCommandRun } from "./run-command.js";

export interface Seam {
  /** Shell command run in the worktree root; exits non-zero while the problem exists. */
  command: string;
  files: string[];
}

export interface SeamVerifierInput {
  worktree: string;
  seam: Seam;
  expectedGreenCondition: string | null;
  timeoutMs: number;
  logPath: string;
  attemptId: string;
  signal?: AbortSignal;
}

/** devflow's own re-run of the seam after an attempt: exit 0 is green, anything else is not. */
export async function runSeamVerifier(input: SeamVerifierInput): Promise<SeamEnvelope> {
  const env = startEnvelope("seam", input.attemptId);
  const run = await runVerifierCommand({
    command: input.seam.command,
    cwd: input.worktree,
    timeoutMs: input.timeoutMs,
    logPath: input.logPath,
    signal: input.signal,
  });
  const payload: SeamPayload = {
    command: input.seam.command,
    files: input.seam.files,
    expected_green_condition: input.expectedGreenCondition,
    ...runFacts(run),
  };
  const evidence_refs = [input.logPath];
  const condition = input.expectedGreenCondition ? `: ${input.expectedGreenCondition}` : "";

  const cannotRun =
    run.failure ?? (commandMissing(run) ? notFoundMessage(input.seam.command, run.exitCode) : null);
  if (cannotRun) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: cannotRun,
      evidence_refs,
      native_payload: payload,
    });
  }
  if (run.exitCode === 0) {
    return env.finish({
      overall_result: "pass",
      green_condition_alignment: "aligned",
      summary: `seam is green: \`${input.seam.command}\` exited 0${condition}`,
      evidence_refs,
      native_payload: payload,
    });
  }
  const how = run.exitCode === null ? `was killed by ${run.signal ?? "a signal"}` : `exited ${run.exitCode}`;
  return env.finish({
    overall_result: "fail",
    green_condition_alignment: "misaligned",
    summary: `seam is still red: \`${input.seam.command}\` ${how}${input.expectedGreenCondition ? `; expected green condition not met: ${input.expectedGreenCondition}` : ""}`,
    evidence_refs,
    native_payload: payload,
  });
}

export interface SeamBaseCheckInput {
  /** A checkout of the untouched base (plus the Observer's seam files), never a coder's work. */
  cwd: string;
  command: string;
  timeoutMs: number;
  logPath: string;
  signal?: AbortSignal;
}

export interface SeamBaseCheck {
  /** False when the command could not produce a verdict (not found, timeout, spawn failure). */
  ran: boolean;
  /** True only when the command ran and failed, as the Observer claimed. */
  red: boolean;
  exitCode: number | null;
  outputExcerpt: string;
  /** One sentence for the user and the observation artifact. */
  message: string;
  logPath: string;
}

/**
 * Runs the seam on base before any coder: a seam claimed red must be red. Exit 0 is "not
 * confirmed"; a missing command or a hang is "did not run" (a seam must be a quick command that
 * fails; a hang proves nothing either way).
 */
export async function checkSeamRedOnBase(input: SeamBaseCheckInput): Promise<SeamBaseCheck> {
  const run = await runVerifierCommand(input);
  const base = { exitCode: run.exitCode, outputExcerpt: run.excerpt, logPath: input.logPath };
  if (run.failure)
    return { ...base, ran: false, red: false, message: `seam did not run on base: ${run.failure}` };
  if (commandMissing(run)) {
    return { ...base, ran: false, red: false, message: notFoundMessage(input.command, run.exitCode) };
  }
  if (run.exitCode === 0) {
    return {
      ...base,
      ran: true,
      red: false,
      message: `seam not confirmed: \`${input.command}\` exited 0 on base, so it does not reproduce the problem`,
    };
  }
  const how = run.exitCode === null ? `was killed by ${run.signal ?? "a signal"}` : `exited ${run.exitCode}`;
  return {
    ...base,
    ran: true,
    red: true,
    message: `seam confirmed red on base: \`${input.command}\` ${how}`,
  };
}

function notFoundMessage(command: string, exitCode: number | null): string {
  const what = exitCode === 126 ? "is not executable" : "was not found";
  return `seam command \`${command}\` ${what} (shell exit ${exitCode}); check the program exists in the worktree and the command is spelled right`;
}

function runFacts(run: VerifierCommandRun) {
  return {
    exit_code: run.exitCode,
    signal: run.signal,
    timed_out: run.timedOut,
    aborted: run.aborted,
    spawn_error: run.spawnError,
    output_excerpt: run.excerpt,
    output_truncated: run.outputTruncated,
    total_output_bytes: run.totalOutputBytes,
    duration_ms: run.durationMs,
  };
}
