import { join } from "node:path";
import type {
  ExtraVerifier,
  ExtraVerifierRun,
  ExtraVerifiersEnvelope,
} from "../artifacts/schemas/verifier-envelope.js";
import type { RepoMounts } from "../process/mount-namespace.js";
import { excerpt } from "../util/truncate.js";
import type { FileFromBase } from "../workspace/index.js";
import { blockGuard, guardTamper } from "./block-guard.js";
import { blockPrograms } from "./block-programs.js";
import { startEnvelope } from "./envelope.js";
import { runVerifierCommand } from "./run-command.js";

export interface ExtraVerifiersInput {
  verifiers: readonly ExtraVerifier[];
  /**
   * The verification checkout reset to the snapshot that will be committed, fresh for each script
   * (so no script sees what an earlier one left), never the coder's checkout, with each of
   * `programs` that base tracks as on base (ADR 0059); says which were taken from base.
   */
  checkoutAt: (programs: readonly string[]) => Promise<{ dir: string; fromBase: FileFromBase[] }>;
  /** Limit of each script's run (LaneOptions.extraVerifierTimeoutMs). */
  timeoutMs: number;
  /** The attempt's directory: logs go to `verifiers/extra-NN.log` under it. */
  attemptDir: string;
  attemptId: string;
  /**
   * The files the attempt changed since base (relative to the checkout): a node program of a block
   * that one of them ends early fails as tamper (the guard, ADR 0063).
   */
  changedFiles: readonly string[];
  /** The run's mount namespace, as for regression (ADR 0031). */
  mounts?: RepoMounts;
  signal?: AbortSignal;
}

/** Output of a failing script shown in the verdict (and so in the repair context); the log has all. */
const SUMMARY_OUTPUT_BYTES = 600;

/**
 * Runs the requester's extra verifiers (ADR 0056), one after another, each exactly like the
 * regression run: in the verification checkout at the snapshot, through runVerifierCommand (PID and
 * mount namespace, devflow's home hidden, the user's checkout read-only, the checkout's tracked
 * files watched, every process it started ended afterwards). Every script runs even after one
 * failed, so the repair context names all that fail. A script that times out, cannot start, is
 * aborted, leaves a process behind or changes a tracked file gave no verdict: `error`, which the
 * gate counts as a failure, never as a pass; so does one whose node program the attempt's code
 * ended early (the guard, block-guard.ts, ADR 0063: a `tamper:` failure).
 */
export async function runExtraVerifiers(input: ExtraVerifiersInput): Promise<ExtraVerifiersEnvelope> {
  const env = startEnvelope("extra_verifiers", input.attemptId);
  const runs: ExtraVerifierRun[] = [];
  for (const [index, verifier] of input.verifiers.entries()) {
    const log = `verifiers/extra-${String(index + 1).padStart(2, "0")}.log`;
    const command = bashCommand(verifier.script);
    // What the block executes is the ticket author's, not the attempt's: run it as on base.
    const checkout = await input.checkoutAt(blockPrograms(verifier.script));
    // Programs run as on base are base's code, not the attempt's.
    const asOnBase = new Set(checkout.fromBase.filter((f) => f.changed).map((f) => f.path));
    const guard = blockGuard(
      checkout.dir,
      input.changedFiles.filter((path) => !asOnBase.has(path)),
    );
    const run = await runVerifierCommand({
      command,
      cwd: checkout.dir,
      env: guard.env,
      nodeOptions: guard.nodeOptions,
      timeoutMs: input.timeoutMs,
      logPath: join(input.attemptDir, log),
      ...(input.mounts ? { mounts: input.mounts } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const failure = run.timedOut
      ? `timed out after ${formatMs(input.timeoutMs)} and was killed (the per-script limit: lane option extraVerifierTimeoutMs, the daemon's worker.verificationTimeoutSeconds)`
      : run.failure
        ? run.failure.replaceAll(`\`${command}\``, `"${verifier.name}"`)
        : guardTamper(run.output, run.exitCode);
    runs.push({
      name: verifier.name,
      result: failure ? "error" : run.exitCode === 0 ? "pass" : "fail",
      exit_code: run.exitCode,
      timed_out: run.timedOut,
      failure,
      output_excerpt: run.excerpt,
      output_truncated: run.outputTruncated,
      duration_ms: run.durationMs,
      log,
      from_base: checkout.fromBase,
    });
  }
  const bad = runs.filter((r) => r.result !== "pass");
  const overall = runs.some((r) => r.result === "error") ? "error" : bad.length > 0 ? "fail" : "pass";
  const replaced = runs.flatMap((r) =>
    (r.from_base ?? []).filter((f) => f.changed).map((f) => `"${r.name}" ran ${f.path} as on base`),
  );
  const note = replaced.length > 0 ? ` (the attempt changed what a block runs: ${replaced.join(", ")})` : "";
  return env.finish({
    overall_result: overall,
    green_condition_alignment: "not_applicable",
    summary:
      (bad.length === 0
        ? `all ${runs.length} extra verifier(s) passed: ${runs.map((r) => `"${r.name}"`).join(", ")}`
        : bad.map(describeBad).join("; ")) + note,
    evidence_refs: runs.map((r) => join(input.attemptDir, r.log)),
    native_payload: { timeout_ms: input.timeoutMs, runs },
  });
}

function describeBad(run: ExtraVerifierRun): string {
  if (run.failure) return `"${run.name}" gave no verdict: ${run.failure}`;
  const tail = excerpt(run.output_excerpt.trim(), SUMMARY_OUTPUT_BYTES).text;
  return `"${run.name}" failed (exit ${run.exit_code ?? "killed"})${tail ? `: ${tail}` : ""}`;
}

/**
 * The script as one shell word for `bash -e -o pipefail` without profile or rc files (a ticket's
 * blocks are bash, like a CI step: the first failing command fails the block).
 */
export function bashCommand(script: string): string {
  return `bash --noprofile --norc -e -o pipefail -c '${script.replace(/'/g, `'\\''`)}'`;
}

const formatMs = (ms: number): string => (ms < 1000 ? `${ms}ms` : `${Math.round(ms / 1000)}s`);
