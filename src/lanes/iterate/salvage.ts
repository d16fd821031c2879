import type {
  CoderReport,
  CoderRunOutcome,
  CoderStatus,
  VerifierEnvelope,
} from "../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../artifacts/store.js";
import { appendLessonOnce } from "./lane/lessons.js";
import { stepsMarkdown } from "./markdown.js";

/**
 * Salvage (ADR 0026, junco's timeout_partial): a coder that was killed at its timeout or crashed
 * may still have left a correct change. devflow never trusts how a coder ended, only the tree it
 * left, so such a change is verified exactly like a finished run's. What is never salvaged: a run
 * that changed nothing (there is nothing to verify), and a run devflow cannot trust at all (a
 * fatal backend status, an abort, a process that outlived the coder), which is "stopped".
 */
export function coderRunOutcome(status: CoderStatus, changed: boolean): CoderRunOutcome {
  switch (status) {
    case "ok":
      return "finished";
    case "timeout":
      return changed ? "timed_out_partial" : "timed_out";
    case "error":
    case "turn_limit":
      return changed ? "crashed_partial" : "crashed";
    default:
      // aborted, auth, rate_limit, budget: nothing of this run is judged.
      return "stopped";
  }
}

/** Whether the change being verified was left by a coder that did not finish. */
export function isSalvaged(outcome: CoderRunOutcome | undefined): boolean {
  return outcome === "timed_out_partial" || outcome === "crashed_partial";
}

/**
 * The honest sentence the terminal reason, the CLI summary and the commit message carry when the
 * verified change comes from a coder that did not finish; null when it finished (or is unknown).
 */
export function salvageNote(
  report: Pick<CoderReport, "coder_outcome" | "status" | "exit_code" | "timeout_ms">,
): string | null {
  if (report.coder_outcome === "timed_out_partial") {
    return `the coder did not finish (stopped at its ${report.timeout_ms} ms timeout); devflow verified the change it left`;
  }
  if (report.coder_outcome === "crashed_partial") {
    const how =
      report.status === "turn_limit"
        ? "hit its turn limit"
        : report.exit_code !== null
          ? `exited with code ${report.exit_code}`
          : "was killed by a signal";
    return `the coder did not finish (it ${how}); devflow verified the change it left`;
  }
  return null;
}

/**
 * A timed-out coder's partial change failed verification: the timeout escalation still applies
 * (the coder ran out of time, so the same attempt re-runs with a longer timeout and no judge
 * attempt is used), but the re-run is told what failed, not just that it timed out. The lesson and
 * the steps file are what the coder prompt's repair section is built from.
 */
export async function recordFailedSalvage(
  store: ArtifactStore,
  attemptId: string,
  failed: readonly VerifierEnvelope[],
  reasons: string,
): Promise<void> {
  await appendLessonOnce(store, {
    attempt_id: attemptId,
    source: "salvage",
    lesson: `The coder timed out; the change it had made so far was verified and failed: ${reasons}`,
    failed_verifiers: failed.map((e) => e.verifier),
  });
  await store.writeText(
    "steps_to_complete_the_task.md",
    stepsMarkdown(
      attemptId,
      "the coder timed out and its partial change failed verification; the next run has a longer timeout",
      failed.map((e) => `Make the ${e.verifier} verifier pass: ${e.summary}`),
    ),
  );
}
