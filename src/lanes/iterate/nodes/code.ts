import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { buildCoderPrompt } from "../../../agents/coder/coder-prompt.js";
import { CoderReport, Lesson, attemptId as toAttemptId } from "../../../artifacts/schemas/index.js";
import { CODER_GROUP_FILE, type CoderRunResult } from "../../../coders/contract.js";
import { endMarkedProcesses, newRunMarker } from "../../../process/containment.js";
import { groupIsAlive, terminateGroup } from "../../../process/process-group.js";
import { newScratchDir } from "../../../process/scratch-dir.js";
import { killPoint } from "../../../util/test-kill-point.js";
import { nowIso } from "../../../util/time.js";
import { coderGitEnv, diffTrees, snapshotTree, taskBranchRun } from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { providerStopError } from "../lane/provider-stop.js";
import { terminate, transition } from "../lane/run-record.js";
import { repoMounts } from "../lane/verification-checkout.js";
import { linkDependencies } from "../link-dependencies.js";
import { coderRunOutcome, isSalvaged } from "../salvage.js";

/** Recorded when the task branch is gone after a run: matches no commit, so the gate reports it. */
const NO_COMMIT = "0".repeat(40);

/** Coder statuses that a retry cannot fix: stop with the reason instead of burning attempts. */
const FATAL = ["auth", "rate_limit", "budget"] as const;
type FatalRun = Extract<CoderRunResult, { status: (typeof FATAL)[number] }>;
const isFatal = (r: CoderRunResult): r is FatalRun => (FATAL as readonly string[]).includes(r.status);

/**
 * One coder run for the current judge attempt. A timeout re-runs the same attempt with a longer
 * timeout (docs/origins.md#04-taskunit-workflow) and does not consume a judge attempt; escalations
 * have their own cap.
 */
export const code: NodeBody = async (state, deps) => {
  const attemptId = toAttemptId(state.judgeAttempt);
  deps.gateway.setAttempt(attemptId);
  await transition(deps.store, "coding", `${attemptId}: coder run ${state.timeoutAttempt}`);
  const dir = deps.store.attemptDir(attemptId);
  const task = await deps.store.read("task_artifact");
  const observation = await deps.store.read("observation_artifact");
  if (!task || !observation) throw new Error("code: task or observation artifact is missing");

  const prompt = buildCoderPrompt({
    task,
    observation,
    lessons: await deps.store.readJsonl("lessons.jsonl", Lesson),
    steps: await deps.store.readText("steps_to_complete_the_task.md"),
    absentSeamPaths: (state.contract?.seam_files ?? []).filter((f) => f.sha256 === null).map((f) => f.path),
  });
  await linkDependencies(state.repoRoot, state.worktree);
  await deps.store.writeText(`attempts/${attemptId}/coder_prompt.md`, prompt);
  const orphan = await stopOrphanedCoder(dir);
  killPoint("code.prompt-written");

  // Keep the transcript of a timed-out run beside the one that replaces it, and that of a run a
  // crash interrupted (this node re-run on --resume, ADR 0033) beside it too.
  const transcript = join(dir, "coder_transcript.log");
  if (existsSync(transcript)) renameSync(transcript, earlierTranscript(dir, state.timeoutAttempt));

  const timeoutMs = deps.options.baseTimeoutMs * state.timeoutAttempt;
  // Nothing touches the worktree between the last snapshot (the seam, or the previous coder run)
  // and this run, so that tree is this attempt's starting point; a crashed run's partial edits,
  // if any, then count toward the attempt that resumed them.
  const before = state.attemptTree ?? state.seamTree ?? (await snapshotTree(state.worktree));
  const started = nowIso();
  // The coder is told the worktree and this scratch dir only, never the attempt dir (ADR 0018);
  // its per-run git config lives in the scratch dir too.
  const scratchDir = await newScratchDir();
  const runMarker = newRunMarker();
  deps.reporter.live.coderStarted?.({ attemptId, transcript, timeoutMs, run: state.timeoutAttempt });
  let survivors: Awaited<ReturnType<typeof endMarkedProcesses>>;
  let result: Awaited<ReturnType<typeof deps.coder.run>>;
  try {
    result = await deps.coder.run({
      prompt,
      worktree: state.worktree,
      attemptDir: dir,
      scratchDir,
      // No bytecode from the coder's own test runs: a `.pyc` in the change fails scope (attack 58e),
      // and an ignored `__pycache__/` left behind fails the attempt by name (ADR 0024).
      env: { ...coderGitEnv(scratchDir), PYTHONDONTWRITEBYTECODE: "1" },
      timeoutMs,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.options.coderModel ? { model: deps.options.coderModel } : {}),
      runMarker,
      ...(deps.reporter.live.coderActivity ? { onActivity: deps.reporter.live.coderActivity } : {}),
      // Where a mount namespace works: the user's checkout and installed dependencies read-only,
      // devflow's home hidden but for this checkout (ADR 0025, 0031), the rest of the machine
      // read-only but for the scratch dir and a private /tmp (ADR 0075); elsewhere the fingerprint
      // and the tamper checks detect instead.
      mounts: { ...repoMounts(state, false), expose: state.worktree, writable: [scratchDir] },
    });
  } finally {
    // Nothing the coder started may run on while devflow snapshots and verifies (issue 9, class 2).
    survivors = await endMarkedProcesses(runMarker);
    await rm(scratchDir, { recursive: true, force: true });
  }
  killPoint("code.coder-ran");
  // Where the task branch stands after the run: the gate checks it is still there, on top of what
  // devflow accepted before, and commit moves it from exactly there (ADR 0018).
  // The commits on it since the base come from the same git process (taskBranchRun); this run's
  // own are those the last run's reading (devflow's state, not the coder's checkout) did not hold
  // (issue 11: `rev-parse HEAD` before the run and `log <before>..HEAD` after it are gone).
  const branchRun = await taskBranchRun(state.worktree, state.taskId, state.baseCommit);
  const coderHead = branchRun.head ?? NO_COMMIT;
  const earlier = new Set(state.coderCommits ?? []);
  if (result.usage) {
    deps.gateway.recordExternalUsage("coder", result.usage, result.usage.cost_usd, attemptId);
  }
  const after = await snapshotTree(state.worktree);
  // A repair attempt's verify asks for the change since the seam tree next: one git process gives
  // both diffs, and verify finds its one kept (issue 11).
  const diff = await diffTrees(
    state.worktree,
    before,
    after,
    state.seamTree && state.seamTree !== before ? { alsoFrom: state.seamTree } : {},
  );
  // Judged from the tree, never from how the coder says it ended (ADR 0026): a timed-out or crashed
  // run that changed the tree is verified; one whose processes outlived it is never trusted.
  const outcome = survivors.length > 0 ? "stopped" : coderRunOutcome(result.status, after !== before);
  await deps.store.writeText(`attempts/${attemptId}/diff.patch`, diff.patch);
  const usage = result.usage
    ? {
        input_tokens: result.usage.input_tokens,
        output_tokens: result.usage.output_tokens,
        total_tokens: result.usage.input_tokens + result.usage.output_tokens,
        cost_usd: result.usage.cost_usd ?? 0,
        calls: 1,
      }
    : null;
  const report = await deps.store.writeAttemptJson(attemptId, "coder_report.json", CoderReport, {
    artifact: "coder_report",
    task_id: state.taskId,
    attempt_id: attemptId,
    backend: deps.coder.name,
    status: result.status,
    coder_outcome: outcome,
    exit_code: result.exitCode,
    timeout_ms: timeoutMs,
    timeout_attempt: state.timeoutAttempt,
    final_message: result.finalMessage,
    changed_files: diff.files,
    coder_commits: branchRun.commits.filter((sha) => !earlier.has(sha)),
    transcript_ref: `attempts/${attemptId}/coder_transcript.log`,
    diff_ref: `attempts/${attemptId}/diff.patch`,
    usage,
    started_at: started,
    duration_ms: result.durationMs,
  });
  const line = `${attemptId} ${result.status}, ${diff.files.length} file(s) changed${isSalvaged(outcome) ? `; verifying the change anyway (${outcome})` : ""}`;
  const base = {
    attemptId,
    detail: {
      status: result.status,
      coder_outcome: outcome,
      changed_files: diff.files,
      timeout_ms: timeoutMs,
      stopped_orphan_pgid: orphan,
    },
  };

  if (survivors.length > 0) {
    const reason = `process_survived: process(es) ${survivors.join(", ")} started by the coder in ${attemptId} could not be ended; devflow does not verify while they can still change the worktree`;
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
    return { ...base, goto: "__end__", line: `${line} (${reason})`, ok: false, runState: "blocked" };
  }
  if (result.status === "aborted") {
    // Leave the checkpoint before this node: --resume re-runs this attempt from the start.
    throw new Error(`coder run aborted during ${attemptId}; resume with --resume`);
  }
  // A timeout that changed nothing has nothing to verify: re-run with a longer timeout. One that
  // changed the tree goes to verify below (timed_out_partial) like a finished run.
  if (outcome === "timed_out") {
    if (state.escalations >= deps.options.maxEscalations) {
      const reason = `coder timed out after ${timeoutMs} ms in ${attemptId} and the ${deps.options.maxEscalations} timeout escalation(s) are used up`;
      await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
      return {
        ...base,
        goto: "__end__",
        line: `${line} (escalations exhausted)`,
        ok: false,
        runState: "blocked",
      };
    }
    return {
      ...base,
      goto: "code",
      update: {
        timeoutAttempt: state.timeoutAttempt + 1,
        escalations: state.escalations + 1,
        attemptTree: after,
        coderHead,
        coderCommits: branchRun.commits,
      },
      line: `${line}; escalating timeout ×${state.timeoutAttempt + 1} (not a judge attempt)`,
      ok: false,
    };
  }
  const providerStop = providerStopError(
    result,
    deps.coder.name,
    attemptId,
    deps.options.leaveProviderStopsOpen,
  );
  if (providerStop) throw providerStop; // the checkpoint stays before this node (lane/provider-stop.ts)
  if (isFatal(result)) {
    const reason = `coder ${deps.coder.name} stopped with ${result.status}: ${result.error || report.final_message}`;
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
    return { ...base, goto: "__end__", line, ok: false, runState: "blocked" };
  }
  return {
    ...base,
    goto: "verify",
    update: { attemptTree: after, coderHead, coderCommits: branchRun.commits },
    line,
    ok: result.status === "ok",
    runState: "coding",
  };
};

/** Where the transcript already in the attempt dir goes: the previous timed-out run's, or a crashed run's. */
function earlierTranscript(dir: string, timeoutAttempt: number): string {
  const timedOut = join(dir, `coder_transcript.timeout-${timeoutAttempt - 1}.log`);
  if (timeoutAttempt > 1 && !existsSync(timedOut)) return timedOut;
  let n = 1;
  while (existsSync(join(dir, `coder_transcript.crashed-${timeoutAttempt}-${n}.log`))) n += 1;
  return join(dir, `coder_transcript.crashed-${timeoutAttempt}-${n}.log`);
}

/**
 * A devflow that was SIGKILLed mid-attempt cannot take its coder along (the coder runs in its own
 * process group so timeouts can end its whole tree). On resume, stop that orphan before a second
 * coder starts in the same worktree.
 */
async function stopOrphanedCoder(attemptDir: string): Promise<number | null> {
  const file = join(attemptDir, CODER_GROUP_FILE);
  if (!existsSync(file)) return null;
  const pgid = Number(readFileSync(file, "utf8").trim());
  rmSync(file, { force: true });
  if (!Number.isInteger(pgid) || pgid <= 1 || !groupIsAlive(pgid)) return null;
  await terminateGroup(pgid, 2000);
  return pgid;
}
