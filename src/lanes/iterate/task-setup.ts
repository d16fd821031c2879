import { resolve } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { ArtifactStore } from "../../artifacts/store.js";
import { DevflowError } from "../../errors/index.js";
import { runLeftoversDieWithTheRun } from "../../process/containment.js";
import { killPoint } from "../../util/test-kill-point.js";
import {
  assertGitRepo,
  type CoderCheckoutReuse,
  cloneForTask,
  isGitUrl,
  makeTaskWorktree,
  openTaskClone,
  openTaskWorktree,
  openVerifyCheckout,
  planTaskWorktree,
  remakeTaskWorktree,
  seedSnapshotIndex,
  type TaskWorkspace,
} from "../../workspace/index.js";
import {
  type AdoptionReport,
  adoptIdleVerificationCheckout,
  MAX_IDLE_VERIFY_CHECKOUTS_ENV,
} from "./lane/adopt-verification-checkout.js";
import type { Reporter } from "./lane/reporter.js";
import { type SweepReport, sweepDeadRuns } from "./sweep.js";

/**
 * Setting a task up before the lane's first node (moved out of run.ts): where the repository is,
 * the clone of a new URL task, and under the task lock the sweep of dead runs (ADR 0033), the
 * coder's checkout (new, or reopened on --resume), the adoption of an idle verification checkout
 * (ADR 0039) and the opening of the task's verification checkout (ADR 0024). What the sweep and
 * the adoption did is reported once the task's reporter exists (`reportSetup`).
 */

/** What of a task's start the setup reads (run.ts's IterateStart). */
interface TaskStart {
  resume: boolean;
  /** A new task starts from this commit instead of the user's HEAD (compose, ADR 0055). */
  baseCommit?: string;
}

export interface LocatedRepo {
  repoRoot: string;
  url: string | null;
}

/** A URL task lives in its clone `<baseDir>/<taskId>`; a path must be a git repository. */
export async function locateRepo(
  opts: { repo: string; baseDir: string },
  taskId: string,
): Promise<LocatedRepo> {
  if (isGitUrl(opts.repo)) {
    const repoRoot = resolve(opts.baseDir, taskId);
    return { repoRoot, url: opts.repo };
  }
  return { repoRoot: await assertGitRepo(resolve(opts.repo)), url: null };
}

/**
 * A new URL task clones first: the clone is where devflow's home goes, and cloneForTask refuses
 * a folder that already exists (making `.devflow` before it made every URL task fail).
 */
export const cloneNewUrlTask = (
  located: LocatedRepo,
  start: TaskStart,
  baseDir: string,
  taskId: string,
): Promise<TaskWorkspace | null> | null =>
  located.url && !start.resume ? cloneForTask({ url: located.url, baseDir: resolve(baseDir), taskId }) : null;

export interface TaskSetup {
  workspace: TaskWorkspace;
  swept: SweepReport;
  adoption: AdoptionReport | null;
  /** A new task's coder checkout: which idle one it reused, which it declined and why (ADR 0050). */
  coderReuse: CoderCheckoutReuse | null;
  /**
   * The lane starts from its first node: a new task, or a `--resume` of one a crash stopped while
   * it was set up (no run record yet, or a run record and no checkpoint, nothing framed).
   */
  startsFresh: boolean;
}

/**
 * With the task lock held: sweep, the run record, the coder's checkout, adoption, the verification
 * checkout. The run record is written before the coder's checkout is made (`record`), so a crash
 * anywhere in here leaves a task `--resume` finishes setting up and starts from its first node,
 * to the verdict an uninterrupted run reaches (ADR 0033): a task dir with no run record is what
 * the lock and the sweep made (nothing else), so it is set up as new; a run record with no
 * checkpoint and nothing framed means no node ran and no coder worked in the checkout, so the
 * checkout is made again from the recorded base.
 */
export async function setUpTask(args: {
  start: TaskStart;
  /** The request as given to this process (empty on a bare `--resume --task-id`). */
  request: string;
  located: LocatedRepo;
  store: ArtifactStore;
  saver: BaseCheckpointSaver;
  taskId: string;
  cloned: TaskWorkspace | null;
  env: NodeJS.ProcessEnv | undefined;
  /** Writes the run record (iterator_run.json r1) for the workspace about to be made. */
  record: (workspace: TaskWorkspace) => Promise<unknown>;
}): Promise<TaskSetup> {
  const { start, request, located, store, taskId, cloned } = args;
  // What a crashed run left (process groups it recorded, base checkouts, scratch dirs) goes
  // before anything starts again (ADR 0033).
  const swept = await sweepDeadRuns(located.repoRoot, taskId);
  killPoint("setup.locked");
  const run = await store.read("iterator_run");
  let workspace: TaskWorkspace;
  let startsFresh = true;
  let coderReuse: CoderCheckoutReuse | null = null;
  if (!run) {
    if (start.resume && located.url)
      throw new DevflowError(
        "TASK_NOT_FOUND",
        `task "${taskId}" stopped while its clone ${located.repoRoot} was set up, before its run was recorded; remove it (rm -rf ${located.repoRoot}) and start the task again without --resume`,
      );
    if (start.resume) assertRequestGiven(located, taskId, request);
    // A new URL task's clone is recorded once its setup succeeded (below): a failed setup before
    // that removes the clone again, so the same command can simply be re-run.
    if (cloned) workspace = cloned;
    else {
      const plan = await planTaskWorktree({
        repoRoot: located.repoRoot,
        taskId,
        ...(start.baseCommit ? { baseCommit: start.baseCommit } : {}),
      });
      await args.record(plan.workspace);
      killPoint("setup.run-recorded");
      coderReuse = { reusedFrom: null, declined: [] };
      // Only where no process of an old coder can outlive its run (ADR 0050): elsewhere one may sit
      // in an idle checkout unseen, and it follows the checkout into this task.
      workspace = await makeTaskWorktree(plan, { idle: runLeftoversDieWithTheRun(), report: coderReuse });
    }
  } else {
    const baseCommit = run.workspace.base_commit;
    startsFresh =
      run.attempts.length === 0 &&
      !run.terminal &&
      !(await store.read("task_artifact")) &&
      !(await args.saver.getTuple({ configurable: { thread_id: taskId } }));
    if (startsFresh) assertRequestGiven(located, taskId, request);
    if (located.url) workspace = await openTaskClone({ cloneDir: located.repoRoot, taskId, baseCommit });
    else if (startsFresh) {
      killPoint("setup.run-recorded");
      workspace = await remakeTaskWorktree({
        repoRoot: located.repoRoot,
        taskId,
        baseCommit,
        reuse: { idle: runLeftoversDieWithTheRun() },
      });
    } else workspace = await openTaskWorktree({ repoRoot: located.repoRoot, taskId, baseCommit });
  }
  // A new task takes over a finished task's idle verification checkout (ADR 0039).
  const adoption = start.resume
    ? null
    : await adoptIdleVerificationCheckout(workspace.repoRoot, taskId, workspace.baseCommit, args.env);
  // Before any node runs (also on --resume): snapshots of the coder's checkout go to devflow's own
  // repository, and verification happens in its checkout (ADR 0024).
  await openVerifyCheckout({
    repoRoot: workspace.repoRoot,
    taskId,
    baseCommit: workspace.baseCommit,
    coderCheckout: workspace.worktree,
  });
  // A checkout devflow made or reset just now, before any coder: the first snapshot starts from
  // the index that checkout wrote (issue 11), not from hashing every file.
  if (workspace.baseIndex) seedSnapshotIndex(workspace.worktree, workspace.baseIndex);
  if (cloned) await args.record(cloned);
  killPoint("setup.checkouts-made");
  return { workspace, swept, adoption, coderReuse, startsFresh };
}

/**
 * A `--resume` that starts the task from its first node needs the request, which only the first
 * process had (the Framer stores it, in task_artifact.json).
 */
function assertRequestGiven(located: LocatedRepo, taskId: string, request: string): void {
  if (!request)
    throw new DevflowError(
      "REQUEST_EMPTY",
      `task "${taskId}" stopped while it was set up, before its request was stored; resume it with the request: devflow iterate --resume --repo ${located.repoRoot} --task-id ${taskId} "<the request>"`,
    );
}

/** What the sweep, the coder checkout's reuse and the adoption did, as info events (nothing when they did nothing). */
export async function reportSetup(reporter: Reporter, setup: TaskSetup): Promise<void> {
  await reportSweep(reporter, setup.swept);
  if (setup.coderReuse) await reportCoderReuse(reporter, setup.coderReuse);
  if (setup.adoption) await reportAdoption(reporter, setup.adoption);
}

/**
 * One info event when the coder's checkout reused an idle one or declined any: a declined checkout
 * is a fact the user may need (a process still working in an old task's checkout, ADR 0050).
 */
async function reportCoderReuse(reporter: Reporter, reuse: CoderCheckoutReuse): Promise<void> {
  const { reusedFrom, declined } = reuse;
  if (!reusedFrom && declined.length === 0) return;
  const took = reusedFrom
    ? `reused the idle coder checkout of task ${reusedFrom} (reset to the base: only what differs is rewritten)`
    : "a fresh coder checkout";
  const refused = declined.map((d) => `declined task ${d.from}'s idle checkout (removed): ${d.reason}`);
  await reporter.info("coder-checkout", [took, ...refused].join("; "), {
    reused_from: reusedFrom,
    declined: declined.map((d) => ({ from: d.from, reason: d.reason })),
  });
}

/** One info event when the sweep removed anything a crashed run left. */
async function reportSweep(reporter: Reporter, swept: SweepReport): Promise<void> {
  const count = swept.groups.length + swept.baseCheckouts.length + swept.scratchDirs.length;
  if (count === 0) return;
  const killed = swept.groups.filter((g) => g.result === "killed");
  await reporter.info(
    "sweep",
    `left by a crashed run: ${killed.length} process group(s) killed, ${swept.baseCheckouts.length} base checkout(s) and ${swept.scratchDirs.length} scratch dir(s) removed`,
    {
      groups: swept.groups.map((g) => ({
        task_id: g.taskId,
        pgid: g.pgid,
        command: g.command,
        result: g.result,
      })),
      base_checkouts: swept.baseCheckouts,
      scratch_dirs: swept.scratchDirs,
    },
  );
}

/** One info event when the task adopted an idle verification checkout or removed surplus ones. */
async function reportAdoption(reporter: Reporter, report: AdoptionReport): Promise<void> {
  const { adopted, removed } = report;
  if (!adopted && removed.length === 0) return;
  const took = adopted
    ? `adopted the idle verification checkout of task ${adopted.from} (${adopted.indexTrusted ? "its index trusted: only what differs is rewritten" : "its index not trusted: every file is rewritten"})`
    : "no idle verification checkout adopted";
  const dropped = removed.length
    ? `; removed ${removed.length} idle checkout(s) beyond the limit of ${report.maxIdle} (${MAX_IDLE_VERIFY_CHECKOUTS_ENV})`
    : "";
  await reporter.info("verify-checkout", `${took}${dropped}`, {
    adopted_from: adopted?.from ?? null,
    index_trusted: adopted?.indexTrusted ?? null,
    removed,
    max_idle: report.maxIdle,
  });
}
