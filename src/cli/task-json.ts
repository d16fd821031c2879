import type { TaskDetails } from "../lanes/iterate/tasks/details.js";
import type { TaskEntry } from "../lanes/iterate/tasks/inventory.js";
import { taskResumeCommandLine } from "./resume-command.js";
import { takeResultCommands } from "./take-result.js";

/** A task of `devflow runs --json`, snake_case like the artifacts. */
export function taskEntryJson(e: TaskEntry, now: number) {
  return {
    id: e.id,
    state: e.state,
    finished: e.finished,
    reason: e.reason,
    branch: e.branch,
    branch_exists: e.branchCommit !== null,
    branch_commit: e.branchCommit,
    result_commit: e.resultCommit,
    base_commit: e.baseCommit,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    age_s: e.updatedAt ? Math.max(0, Math.round((now - Date.parse(e.updatedAt)) / 1000)) : null,
    paths: {
      artifacts: e.paths.artifacts,
      worktree: e.paths.worktree,
      verify: e.paths.verify,
      verify_git_dir: e.paths.verifyGitDir,
    },
    bytes: e.bytes,
  };
}

/** `devflow show --json`. */
export function taskDetailsJson(d: TaskDetails, repoRoot: string, now: number) {
  return {
    ...taskEntryJson(d, now),
    title: d.title,
    request: d.request,
    questions: d.questions,
    attempts: d.attempts.map((a) => ({
      id: a.id,
      verdict: a.verdict,
      coder_status: a.coderStatus,
      summary: a.summary,
      checks: a.checks,
      transcript: a.transcript,
    })),
    files: { run_record: d.files.runRecord, events: d.files.events },
    take_result: takeResultFor(d),
    resume_command: resumeCommandFor(d, repoRoot),
  };
}

/** The command that continues the task: only one that stopped unfinished and is not running now. */
export function resumeCommandFor(d: TaskDetails, repoRoot: string): string | null {
  if (d.finished || d.state === "running") return null;
  return taskResumeCommandLine(d.id, repoRoot, d.coder);
}

/** The take-the-result commands while the completed task's branch still holds its result. */
export function takeResultFor(d: TaskEntry) {
  if (d.branchCommit === null || d.branchCommit !== d.resultCommit) return null;
  return takeResultCommands({ verdict: d.state, commit: d.resultCommit, branch: d.branch });
}
