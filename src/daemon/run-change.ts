import { existsSync } from "node:fs";
import { join } from "node:path";
import { taskDir, taskDirTaken } from "../home/index.js";
import { type IterateLaneSettings, iterateLane } from "../lanes/iterate/run.js";
import { removeFinishedWorktree } from "../lanes/iterate/tasks/finish-worktree.js";
import type { IterateResult } from "../lanes/outcome.js";
import { isGitUrl } from "../workspace/index.js";
import { completedFromTimedOutCoder, lastVerifiedAttempt } from "./partial-work.js";
import { runEndWithoutRun } from "./run-end.js";
import type { TicketRequest } from "./ticket-request.js";
import { TicketSpend } from "./ticket-spend.js";
import { blockVerifiers, verificationResults } from "./verification-results.js";
import type { RunEnd, TicketRun } from "./worker-types.js";

/**
 * How the daemon's change flow runs the iterate lane, apart from what a ticket sets: model, coder,
 * limits and model mode as the `iterate` command resolves them (config layers, flags), never
 * interactive (`--no-input`: a task that needs answers ends needs_more_context).
 */
export type ChangeDefaults = Omit<
  IterateLaneSettings,
  "repo" | "baseDir" | "interactive" | "signal" | "onProgress" | "confirmCoder" | "gateway"
>;

/**
 * Runs a `repo:` ticket on the iterate lane, the entry the `iterate` command uses, with the
 * ticket's coder, model and max_iterations. The task id is the ticket id, so a ticket claimed again
 * after a stop or a crash finds its task and resumes it from the checkpoint (`--resume`) instead of
 * starting over. A URL is cloned under `<data root>/cache/clones/<id>`.
 */
export async function runChangeTicket(
  run: TicketRun,
  ticket: TicketRequest,
  defaults: ChangeDefaults,
  clonesDir: string,
  root: string,
): Promise<RunEnd> {
  const { frontmatter } = ticket;
  const url = frontmatter.repo !== undefined && isGitUrl(frontmatter.repo);
  const repo = url ? (frontmatter.repo as string) : (run.claim.record.repo_key ?? "");
  const taskId = run.claim.id;
  const home = url ? join(clonesDir, taskId) : repo;
  const resume = existsSync(home) && taskDirTaken(home, taskId);
  // Every step's cost goes to the spend ledger; the ticket's budget_usd stops the run (ADR 0053).
  const spend = await TicketSpend.open(root, taskId, frontmatter.budget_usd);
  if (spend.stopped) return budgetStopped(spend, taskDir(home, taskId), taskId, resume);
  const lane = iterateLane({
    ...defaults,
    repo,
    baseDir: clonesDir,
    ...(frontmatter.coder ? { coder: frontmatter.coder } : {}),
    ...(frontmatter.model ? { model: frontmatter.model } : {}),
    lane: {
      ...defaults.lane,
      // A coder's provider stop is requeued by the provider gate, not ended blocked (ADR 0052).
      leaveProviderStopsOpen: true,
      ...(frontmatter.max_iterations ? { maxJudgeAttempts: frontmatter.max_iterations } : {}),
    },
    onProgress: spend.sink,
    interactive: false,
    signal: AbortSignal.any([run.signal, spend.signal]),
  });
  let outcome: Awaited<ReturnType<typeof lane.run>>;
  try {
    // The ticket's `## Verification` blocks run as the task's extra verifiers (ADR 0056).
    outcome = await lane.run({
      request: ticket.request,
      taskId,
      resume,
      extraVerifiers: blockVerifiers(ticket.verification),
    });
  } catch (error) {
    // The daemon's own stop outranks the budget's: that ticket goes back to the inbox, resumable.
    if (!spend.stopped || run.signal.aborted) throw error;
    return budgetStopped(spend, taskDir(home, taskId), taskId, resume);
  } finally {
    await spend.flush();
  }
  if (outcome.kind === "needs_answers")
    // Not interactive, so the lane ends needs_more_context itself; this is the defensive rest.
    return runEndWithoutRun({
      status: "failed",
      verdict: "needs_more_context",
      reason: `needs answers: ${outcome.questions.join("; ")}`,
      taskId,
      resumed: resume,
      verification: await verificationResults(ticket.verification, null),
    });
  const result: IterateResult = outcome.result;
  await removeFinishedWorktree(result.artifactDir, result.taskId);
  const { verdict, reason, branch, commit } = result.terminal;
  // A completed change that came from a coder stopped at its timeout is a salvaged one (ADR 0053).
  const salvaged = verdict === "completed" ? await completedFromTimedOutCoder(result.artifactDir) : null;
  return {
    status: verdict !== "completed" ? "failed" : salvaged ? "timeout_partial" : "completed",
    partial: salvaged,
    verdict,
    reason: withLedgerProblem(
      spend,
      outcome.kind === "handoff"
        ? `${reason} (the daemon does not run the ${outcome.target} lane yet)`
        : reason,
    ),
    taskId,
    branch: branch ?? result.branch,
    commit,
    attempts: result.attempts,
    artifactDir: result.artifactDir,
    resumed: resume,
    verification: await verificationResults(ticket.verification, result.artifactDir),
  };
}

/**
 * The end of a run its ticket's budget_usd stopped (ADR 0053): `aborted_partial` with the last
 * verified attempt when there is one (its diff and verdicts stay in the task's artifacts, the task
 * stays resumable), else `failed`. Either way the verdict is `budget_exhausted` and the reason names
 * the limit and the spend.
 */
async function budgetStopped(
  spend: TicketSpend,
  artifactDir: string,
  taskId: string,
  resumed: boolean,
): Promise<RunEnd> {
  const partial = await lastVerifiedAttempt(artifactDir);
  const kept = partial
    ? `; salvaged ${partial.attempt_id}, verified (${partial.verifiers.map((v) => `${v.verifier} ${v.overall_result}`).join(", ")}; gate ${partial.gate ?? "not run"}): ${partial.diff}`
    : "; no attempt's change had been verified yet";
  return {
    status: partial ? "aborted_partial" : "failed",
    verdict: "budget_exhausted",
    reason: withLedgerProblem(spend, `${spend.stopReason}${kept}`),
    taskId,
    branch: null,
    commit: null,
    attempts: 0,
    artifactDir: existsSync(artifactDir) ? artifactDir : null,
    resumed,
    partial,
  };
}

const withLedgerProblem = (spend: TicketSpend, reason: string): string =>
  spend.ledgerProblem ? `${reason} (${spend.ledgerProblem})` : reason;
