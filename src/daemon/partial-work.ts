import { existsSync } from "node:fs";
import { join } from "node:path";
import { ArtifactStore } from "../artifacts/index.js";
import { CoderReport, VerifierEnvelope, VerifierName } from "../artifacts/schemas/index.js";
import type { PartialWork } from "../artifacts/schemas/ticket.js";

/**
 * The salvaged work of a ticket run that did not finish (ADR 0053): the last attempt of the task
 * whose change devflow verified (its verifier envelopes are on disk: the verify step finished),
 * with each verifier's result, the gate's verdict when the gate ran, and the attempt's diff. Null
 * when no attempt was verified: nothing was salvaged, so the status is not a partial one.
 */
export async function lastVerifiedAttempt(artifactDir: string): Promise<PartialWork | null> {
  if (!existsSync(artifactDir)) return null;
  const store = new ArtifactStore(artifactDir);
  const attempts = await store.listAttempts();
  // `extra_verifiers` runs only for a task that has some (ADR 0056): required then, absent otherwise.
  const hasExtra = ((await store.read("task_artifact"))?.extra_verifiers?.length ?? 0) > 0;
  const required = VerifierName.options.filter((name) => hasExtra || name !== "extra_verifiers");
  for (const attemptId of attempts.reverse()) {
    const verifiers: PartialWork["verifiers"] = [];
    for (const name of required) {
      const envelope = await store.readAttemptJson(attemptId, `verifiers/${name}.json`, VerifierEnvelope);
      if (envelope) verifiers.push({ verifier: name, overall_result: envelope.overall_result });
    }
    if (verifiers.length < required.length) continue;
    const report = await store.readAttemptJson(attemptId, "coder_report.json", CoderReport);
    const run = await store.read("iterator_run");
    const summary = run?.attempts.find((a) => a.attempt_id === attemptId);
    const cumulative = store.attemptRef(attemptId, "cumulative.diff.patch");
    return {
      attempt_id: attemptId,
      coder_outcome: report?.coder_outcome ?? null,
      diff: existsSync(join(artifactDir, cumulative))
        ? cumulative
        : store.attemptRef(attemptId, "diff.patch"),
      verifiers,
      gate: summary?.verdict ?? null,
    };
  }
  return null;
}

/** The attempt whose change the lane committed came from a coder stopped at its timeout. */
export async function completedFromTimedOutCoder(artifactDir: string): Promise<PartialWork | null> {
  const partial = await lastVerifiedAttempt(artifactDir);
  return partial?.coder_outcome === "timed_out_partial" && partial.gate === "pass" ? partial : null;
}
