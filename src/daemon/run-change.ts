import { existsSync } from "node:fs";
import { join } from "node:path";
import { taskDirTaken } from "../home/index.js";
import { type IterateLaneSettings, iterateLane } from "../lanes/iterate/run.js";
import { removeFinishedWorktree } from "../lanes/iterate/tasks/finish-worktree.js";
import type { IterateResult } from "../lanes/outcome.js";
import { isGitUrl } from "../workspace/index.js";
import type { TicketRequest } from "./ticket-request.js";
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
): Promise<RunEnd> {
  const { frontmatter } = ticket;
  const url = frontmatter.repo !== undefined && isGitUrl(frontmatter.repo);
  const repo = url ? (frontmatter.repo as string) : (run.claim.record.repo_key ?? "");
  const taskId = run.claim.id;
  const home = url ? join(clonesDir, taskId) : repo;
  const resume = existsSync(home) && taskDirTaken(home, taskId);
  const lane = iterateLane({
    ...defaults,
    repo,
    baseDir: clonesDir,
    ...(frontmatter.coder ? { coder: frontmatter.coder } : {}),
    ...(frontmatter.model ? { model: frontmatter.model } : {}),
    lane: {
      ...defaults.lane,
      ...(frontmatter.max_iterations ? { maxJudgeAttempts: frontmatter.max_iterations } : {}),
    },
    onProgress: () => undefined,
    interactive: false,
    signal: run.signal,
  });
  // The ticket's `## Verification` blocks run as the task's extra verifiers (ADR 0056).
  const outcome = await lane.run({
    request: ticket.request,
    taskId,
    resume,
    extraVerifiers: blockVerifiers(ticket.verification),
  });
  if (outcome.kind === "needs_answers")
    // Not interactive, so the lane ends needs_more_context itself; this is the defensive rest.
    return {
      status: "failed",
      verdict: "needs_more_context",
      reason: `needs answers: ${outcome.questions.join("; ")}`,
      taskId,
      branch: null,
      commit: null,
      attempts: 0,
      artifactDir: null,
      resumed: resume,
      verification: await verificationResults(ticket.verification, null),
    };
  const result: IterateResult = outcome.result;
  await removeFinishedWorktree(result.artifactDir, result.taskId);
  const { verdict, reason, branch, commit } = result.terminal;
  return {
    status: verdict === "completed" ? "completed" : "failed",
    verdict,
    reason:
      outcome.kind === "handoff"
        ? `${reason} (the daemon does not run the ${outcome.target} lane yet)`
        : reason,
    taskId,
    branch: branch ?? result.branch,
    commit,
    attempts: result.attempts,
    artifactDir: result.artifactDir,
    resumed: resume,
    verification: await verificationResults(ticket.verification, result.artifactDir),
  };
}
