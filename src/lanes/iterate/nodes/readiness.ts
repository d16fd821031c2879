import { join } from "node:path";
import {
  type Contract,
  canonicalSha256,
  contractSha256,
  type IteratorRun,
} from "../../../artifacts/schemas/index.js";
import { nowIso } from "../../../util/time.js";
import { detectTestCommand, takeRegressionBaseline } from "../../../verify/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { pushState, terminate, updateRun } from "../lane/run-record.js";
import { verificationCheckoutAt, verifierMounts } from "../lane/verification-checkout.js";

type Readiness = NonNullable<IteratorRun["readiness"]>;

/**
 * The Iterator's readiness gate: deterministic, from the artifacts alone. It cites the exact task
 * and observation revisions it relied on, so a later reader can tell what the decision saw.
 */
export const readiness: NodeBody = async (state, deps) => {
  const task = await deps.store.read("task_artifact");
  const observation = await deps.store.read("observation_artifact");
  if (!task || !observation) throw new Error("readiness: task or observation artifact is missing");

  const cites = {
    task_artifact_revision: task.revision,
    observation_artifact_revision: observation.revision,
  };
  const seamRed = observation.seam_check?.red === true;
  const decide = async (status: Readiness["status"], reason: string, contract?: Contract) => {
    await updateRun(deps.store, (run) => {
      run.readiness = {
        status,
        reason,
        cites,
        seam_red_confirmed: seamRed,
        decided_at: nowIso(),
        ...(contract ? { contract, contract_sha256: contractSha256(contract) } : {}),
      };
      pushState(run, status === "ready" ? "ready_for_coder" : "awaiting_readiness", reason);
    });
  };
  const line = (what: string) =>
    `${what} (cites task r${task.revision}, observation r${observation.revision})`;

  switch (observation.verdict) {
    case "reroute_insight":
    case "promote_idea": {
      const reason = `observer verdict ${observation.verdict}: ${observation.summary}`;
      await decide("not_ready", reason);
      return { goto: "handoff", line: line(observation.verdict), ok: false };
    }
    case "blocked": {
      const reason = `observer verdict blocked: ${observation.summary}`;
      await decide("blocked", reason);
      await terminate(deps.store, deps.gateway, {
        verdict: "blocked",
        reason,
        questions: observation.questions,
      });
      return { goto: "__end__", line: line("blocked"), ok: false, runState: "blocked" };
    }
    case "needs_more_context": {
      await decide("not_ready", `needs more context: ${observation.summary}`);
      return { goto: "ask", line: line("needs_more_context"), ok: false };
    }
    case "ready_for_coder":
      break;
  }
  if (!seamRed || !observation.failing_seam) {
    // Defensive: observe downgrades an unconfirmed seam, so a ready verdict without one is a bug upstream.
    await decide("not_ready", "no failing seam confirmed red on base");
    return { goto: "ask", line: line("seam not confirmed"), ok: false };
  }

  const detected = deps.options.testCommand ?? detectTestCommand(state.worktree)?.command ?? null;
  // The baseline runs in the task's verification checkout reset to base (ADR 0024).
  const baseline = detected
    ? await takeRegressionBaseline({
        cwd: await verificationCheckoutAt(state, state.baseCommit),
        command: detected,
        timeoutMs: deps.options.commandTimeoutMs,
        logPath: join(deps.store.dir, "regression_baseline.log"),
        mounts: verifierMounts(state),
        signal: deps.signal,
        seamFiles: observation.failing_seam.files,
      })
    : null;

  if (baseline && !baseline.ran) {
    const reason = `the regression command \`${detected}\` could not run on the base commit: ${baseline.error ?? "no verdict"}. Fix it or pass --test-cmd <command>.`;
    await decide("blocked", reason);
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason });
    return { goto: "__end__", line: line("regression command unusable"), ok: false, runState: "blocked" };
  }

  // Confirmation hook (chat without --yes): the user may decline before any coder is spawned.
  if (deps.confirmCoder) {
    const confirmed = await deps.confirmCoder({
      taskId: state.taskId,
      coder: deps.coder.name,
      title: task.title,
      seamCommand: observation.failing_seam.command,
      worktree: state.worktree,
    });
    if (!confirmed) {
      const reason = "the user declined to start the coder";
      await decide("not_ready", reason);
      await terminate(deps.store, deps.gateway, { verdict: "blocked", reason });
      return { goto: "__end__", line: line("declined by the user"), ok: false, runState: "blocked" };
    }
  }

  // The contract every attempt is judged against, pinned before any coder can write anything.
  const seam = observation.failing_seam;
  const contract: Contract = {
    task_id: state.taskId,
    task_artifact_revision: task.revision,
    observation_artifact_revision: observation.revision,
    task_artifact_sha256: canonicalSha256(task),
    observation_artifact_sha256: canonicalSha256(observation),
    base_commit: state.baseCommit,
    seam_command: seam.command,
    seam_files: [...seam.files].sort().map((path) => ({ path, sha256: state.seamFileHashes[path] ?? null })),
    ...(state.seamUnprotected.length > 0 ? { seam_files_unprotected: state.seamUnprotected } : {}),
    ...(state.testConfigImports.length > 0 ? { test_config_imports: state.testConfigImports } : {}),
    ...(state.seamScopeNamed.length > 0 ? { seam_files_scope_named: state.seamScopeNamed } : {}),
    ...(state.seamComputedLoaders.length > 0 ? { seam_computed_loaders: state.seamComputedLoaders } : {}),
    seam_tests: state.seamTests,
    expected_green_condition: observation.expected_green_condition,
    scope: task.scope_boundary,
    test_command: detected,
  };
  await decide("ready", `seam \`${seam.command}\` is red on base; spawning the coder`, contract);
  return {
    goto: "code",
    update: {
      contract,
      // The first pinning only: a re-plan's readiness comes after coders have run (ADR 0074).
      contractPinnedAtMs: state.contractPinnedAtMs ?? Date.now(),
      testCommand: detected,
      baseline,
      // After a re-plan the attempt numbering goes on: attempt ids never repeat within a task.
      judgeAttempt: state.judgeAttempt + 1,
      timeoutAttempt: 1,
    },
    line: line("ready"),
    runState: "ready_for_coder",
    detail: { test_command: detected, baseline_exit: baseline?.exitCode ?? null },
  };
};
