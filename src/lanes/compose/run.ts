import { join } from "node:path";
import {
  type Contract,
  emptyUsage,
  type IdeaBrief,
  isCriticJudged,
  type PlanRun,
  type PlanRunState,
  type PlanTaskRun,
  type Terminal,
  type Usage,
  VerifierEnvelope,
} from "../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../artifacts/store.js";
import { DevflowError } from "../../errors/index.js";
import { lockPlan, openPlanStore, openTaskStore, readRecord, taskDirTaken } from "../../home/index.js";
import { killPoint } from "../../util/test-kill-point.js";
import { nowIso } from "../../util/time.js";
import {
  assertGitRepo,
  headCommit,
  isGitUrl,
  landOnPlanBranch,
  planBranch,
  planDiff,
} from "../../workspace/index.js";
import { DEFAULT_LANE_OPTIONS } from "../iterate/lane/deps.js";
import { iterateLane } from "../iterate/run.js";
import type { ComposeOutcome } from "../outcome.js";
import { COMPOSE_LIMITS, type ComposeLimits } from "./limits.js";
import { pendingTask } from "./pending-task.js";
import { reviewPlan } from "./plan-review.js";
import { verifyPlan } from "./plan-verify.js";
import { replan } from "./replan.js";
import type { ComposeSettings } from "./settings.js";

export type { ComposeSettings } from "./settings.js";

/**
 * The compose lane (ADR 0055): a deterministic orchestrator, no model navigating phases. An
 * approved plan's tasks run one by one through the iterate lane, each from the previous task's
 * verified commit (stacked), each with its own iterate task (id `plan-<id>-t<n>`, its own
 * artifacts and checkpoint) and at most `maxImplementAttempts` judge attempts. A task's verified
 * commit lands on the integration branch `devflow/plan-<id>`; the first task that ends without one
 * stops the plan (later tasks are skipped: they were planned on top of it). After every task
 * landed: Verify (devflow re-runs every seam and the regression suite on the final tree) and
 * Review (the critic over the whole diff against the brief). plan_run.json is the truth of what
 * landed; a run started again with the same plan id resumes there without redoing landed tasks.
 */
export async function runCompose(settings: ComposeSettings, planId: string): Promise<ComposeOutcome> {
  if (isGitUrl(settings.repo))
    throw new DevflowError(
      "BAD_OPTION",
      "devflow plan works on a local repository: clone it first, then pass its path",
    );
  const repoRoot = await assertGitRepo(settings.repo);
  const brief = readRecord(repoRoot, "idea", planId);
  if (!brief)
    throw new DevflowError(
      "PLAN_NOT_FOUND",
      `no plan "${planId}" in ${repoRoot} (.devflow/idea/${planId}/idea_brief.json)`,
    );
  // One process per plan (ADR 0060): a second `--resume` of a running plan is refused here.
  const lock = await lockPlan(repoRoot, planId);
  try {
    return await composePlan(settings, repoRoot, brief, planId);
  } finally {
    await lock.release();
  }
}

/** runCompose under the plan's lock. */
async function composePlan(
  settings: ComposeSettings,
  repoRoot: string,
  brief: IdeaBrief,
  planId: string,
): Promise<ComposeOutcome> {
  const limits: ComposeLimits = { ...COMPOSE_LIMITS, ...settings.limits };
  const store = openPlanStore(repoRoot, planId);
  const plan = new PlanRecord(store, settings.onPlan);
  await plan.open(() => newPlanRun(repoRoot, brief, limits));
  const finish = (): ComposeOutcome => ({
    kind: "finished",
    lane: "compose",
    result: {
      planId,
      run: plan.run,
      artifactPath: store.path("plan_run"),
      branch: plan.run.integration_branch,
    },
  });
  if (plan.run.terminal) return finish();
  let current = brief;
  /** Each task's contract read when it landed, before a later coder ran (plan-verify.ts). */
  const landedContracts = new Map<string, Contract | null>();

  /** PLAN_INVALID: ask, then either continue with the revised tasks (true) or end the plan. */
  const onPlanInvalid = async (
    source: "task" | "review",
    planTaskId: string | null,
    reason: string,
  ): Promise<boolean> => {
    const decision = await replan({
      settings,
      repoRoot,
      run: plan.run,
      brief: current,
      limits,
      source,
      planTaskId,
      reason,
    });
    if (decision.kind === "replanned") {
      await plan.update((run) => {
        run.replans.push(decision.entry);
        run.tasks = [...run.tasks.filter((t) => t.status === "landed"), ...decision.tasks];
        run.verify = null;
        run.review = null;
        addUsage(run, decision.usage);
        enter(run, "implementing", decision.why);
      });
      current = decision.brief;
      return true;
    }
    await plan.update((run) => {
      if (decision.entry) run.replans.push(decision.entry);
      if (decision.usage) addUsage(run, decision.usage);
      for (const [i, t] of run.tasks.entries())
        if (t.status === "pending")
          setTask(run, i, { status: "skipped", reason: "not started: the plan was judged invalid" });
      const exhausted = decision.kind === "exhausted";
      run.gave_up = exhausted;
      end(run, exhausted ? "gave_up" : source === "task" ? "stopped" : "unverified", decision.why);
    });
    return false;
  };

  for (;;) {
    const stopped = await runTasks(settings, repoRoot, plan, limits, landedContracts);
    if (stopped) {
      const { index, task, ended, usage } = stopped;
      const { verdict, reason, attempts } = ended;
      if (ended.planInvalid) {
        await plan.update((run) => {
          setTask(run, index, { status: "failed", commit: null, verdict, reason, attempts });
          addUsage(run, usage);
          enter(run, "replanning", `${task.plan_task_id}'s critic judged the plan invalid`);
        });
        if (await onPlanInvalid("task", task.plan_task_id, reason)) continue;
        return finish();
      }
      const gaveUp = verdict === "exhausted";
      await plan.update((run) => {
        setTask(run, index, { status: "failed", commit: null, verdict, reason, attempts });
        for (let later = index + 1; later < run.tasks.length; later++)
          setTask(run, later, {
            status: "skipped",
            reason: `not started: ${task.plan_task_id} did not land`,
          });
        addUsage(run, usage);
        const why = gaveUp
          ? `${task.plan_task_id} exhausted its ${limits.maxImplementAttempts} attempts: ${reason}`
          : `${task.plan_task_id} ended ${verdict}: ${reason}`;
        run.gave_up = gaveUp;
        end(run, gaveUp ? "gave_up" : "stopped", why);
      });
      return finish();
    }

    const finalCommit = plan.run.tasks.at(-1)?.commit;
    if (!finalCommit) throw new Error(`plan ${planId}: every task landed but the last has no commit`);
    if (!plan.run.verify) {
      await plan.update((run) => enter(run, "verifying", "every task landed"));
      const verify = await verifyPlan({
        repoRoot,
        planStore: store,
        baseCommit: plan.run.base_commit,
        finalCommit,
        landed: plan.run.tasks,
        landedContracts,
        timeoutMs: settings.lane?.commandTimeoutMs ?? DEFAULT_LANE_OPTIONS.commandTimeoutMs,
        ...(settings.signal ? { signal: settings.signal } : {}),
      });
      await plan.update((run) => {
        run.verify = verify;
      });
    }
    const verify = plan.run.verify;
    if (verify?.overall_result !== "pass") {
      await plan.update((run) =>
        end(run, "unverified", `verify failed on the final tree: ${verify?.summary}`),
      );
      return finish();
    }
    if (!plan.run.review) {
      await plan.update((run) => enter(run, "reviewing", "verify passed"));
      const diff = await planDiff(repoRoot, plan.run.base_commit, finalCommit);
      const replans = plan.run.replans.filter((r) => r.approved).length;
      const reviewed = await reviewPlan({ settings, store, brief: current, diff, verify, replans });
      await plan.update((run) => {
        run.review = reviewed.review;
        addUsage(run, reviewed.usage);
      });
    }
    const review = plan.run.review;
    if (review?.overall_result === "pass") {
      await plan.update((run) => end(run, "completed", "every task landed; verify and review passed"));
      return finish();
    }
    if (review?.plan_invalid) {
      if (plan.run.state !== "replanning")
        await plan.update((run) => enter(run, "replanning", "the review judged the plan invalid"));
      if (await onPlanInvalid("review", null, `the review judged the plan invalid: ${review.summary}`))
        continue;
      return finish();
    }
    await plan.update((run) =>
      end(run, "unverified", `the review did not pass: ${review?.summary ?? "no review"}`),
    );
    return finish();
  }
}

/** The first task that did not land (null when every task landed), with how it ended. */
interface StoppedTask {
  index: number;
  task: PlanTaskRun;
  ended: TaskEnd;
  usage: Usage;
}

/**
 * Runs every task not recorded landed, in order, each from the previous one's verified commit, and
 * lands each verified commit. Stops at the first task that ends without one.
 */
async function runTasks(
  settings: ComposeSettings,
  repoRoot: string,
  plan: PlanRecord,
  limits: ComposeLimits,
  landedContracts: Map<string, Contract | null>,
): Promise<StoppedTask | null> {
  const planId = plan.run.plan_id;
  for (const [index, task] of plan.run.tasks.entries()) {
    if (task.status === "landed") continue;
    const onto = index === 0 ? plan.run.base_commit : plan.run.tasks[index - 1]?.commit;
    if (!onto) throw new Error(`plan ${planId}: task ${task.plan_task_id} has no landed predecessor`);
    await plan.update((run) => {
      setTask(run, index, { status: "running", base_commit: onto });
      if (run.state !== "implementing") enter(run, "implementing", `${task.plan_task_id} started`);
    });
    const ended = await runTask(settings, repoRoot, task, onto, limits);
    const usage = await taskUsage(repoRoot, task.iterate_task_id);
    const { verdict, reason, commit, attempts } = ended;
    if (!(ended.finished && verdict === "completed" && commit)) return { index, task, ended, usage };
    // Only a completed task's verified commit lands, and only as one commit on the last landed one.
    await landOnPlanBranch(repoRoot, plan.run.integration_branch, { commit, onto, first: index === 0 });
    killPoint("compose.branch-moved");
    landedContracts.set(task.iterate_task_id, await landedContract(repoRoot, task.iterate_task_id));
    await plan.update((run) => {
      setTask(run, index, { status: "landed", commit, verdict, reason, attempts });
      addUsage(run, usage);
    });
    killPoint("compose.task-landed");
  }
  return null;
}

/** How a plan task ended: its iterate verdict, and whether the lane finished (not a handoff or pause). */
interface TaskEnd {
  finished: boolean;
  verdict: Terminal["verdict"];
  reason: string;
  commit: string | null;
  attempts: number;
  /** The task's critic judged the plan's assumptions wrong (PLAN_INVALID), not the code. */
  planInvalid: boolean;
}

/**
 * One plan task through the iterate lane: a new task from `onto`, or its own resume. A task whose
 * run record already holds a verdict (a crash after it ended, before the plan recorded it) is not
 * run again: the verdict is read back. Resuming it would also compare the user's repository with
 * how it was when the task started, and the integration branch may have moved since (the crash came
 * after the landing), which is devflow's own move, not the user's. With `onQuestions` the task runs
 * interactively: its questions pause the plan for the answer, which resumes the same task.
 */
async function runTask(
  settings: ComposeSettings,
  repoRoot: string,
  task: PlanTaskRun,
  onto: string,
  limits: ComposeLimits,
): Promise<TaskEnd> {
  const taskStore = openTaskStore(repoRoot, task.iterate_task_id);
  const recorded = await taskStore.read("iterator_run").catch(() => null);
  if (recorded?.terminal) return ended(taskStore, recorded.terminal, recorded.attempts.length);
  const cassette = task.replan ? `r${task.replan}-${task.plan_task_id}.json` : `${task.plan_task_id}.json`;
  const lane = iterateLane({
    repo: repoRoot,
    baseDir: ".",
    model: settings.model,
    coder: settings.coder,
    mode: settings.mode,
    ...(settings.cassetteDir ? { cassettePath: join(settings.cassetteDir, cassette) } : {}),
    lane: { ...settings.lane, maxJudgeAttempts: limits.maxImplementAttempts },
    onProgress: settings.onProgress,
    interactive: Boolean(settings.onQuestions),
    ...(settings.signal ? { signal: settings.signal } : {}),
    ...(settings.env ? { env: settings.env } : {}),
  });
  // The iterate task id is deterministic: a task a crash stopped is continued by its own resume.
  const resume = taskDirTaken(repoRoot, task.iterate_task_id);
  let outcome = await lane.run({
    request: task.request,
    taskId: task.iterate_task_id,
    resume,
    baseCommit: onto,
  });
  // needs_more_context pauses the plan for the answer; the answer resumes the same task.
  while (outcome.kind === "needs_answers" && outcome.asks === "needs_more_context" && settings.onQuestions) {
    const answer = await settings.onQuestions({
      planTaskId: task.plan_task_id,
      questions: outcome.questions,
    });
    if (!answer?.trim()) break;
    outcome = await lane.resume(task.iterate_task_id, answer);
  }
  // Replay: a task that consumed fewer of its part's answers than recorded diverged from the recording.
  reportUnused(settings, task, cassette, lane.unusedReplies());
  if (outcome.kind === "needs_answers")
    return {
      finished: false,
      verdict: "needs_more_context",
      reason: `${outcome.asks === "replan" ? "the critic judged the plan invalid" : "paused with questions"}: ${outcome.questions.join("; ")}`,
      commit: null,
      attempts: 0,
      // An interactive task asks its own re-plan: the plan re-plans instead (the task stays paused).
      planInvalid: outcome.asks === "replan",
    };
  const { terminal, attempts } = outcome.result;
  return { ...(await ended(taskStore, terminal, attempts)), finished: outcome.kind === "finished" };
}

/** A task's leftover cassette answers, to `onUnusedAnswers` (the iterate lane knows none outside replay). */
function reportUnused(
  settings: ComposeSettings,
  task: PlanTaskRun,
  cassette: string,
  unused: Partial<Record<string, number>>,
): void {
  if (!settings.cassetteDir || !Object.values(unused).some((n) => (n ?? 0) > 0)) return;
  settings.onUnusedAnswers?.({
    planTaskId: task.plan_task_id,
    cassette: join(settings.cassetteDir, cassette),
    unused,
  });
}

/**
 * A task's end from its terminal: a needs_more_context task's reason carries its questions (the
 * report shows them); a task blocked by its gate is PLAN_INVALID when the critic envelope of the
 * deciding attempt says so (typed, never read from the reason's words).
 */
async function ended(store: ArtifactStore, terminal: Terminal, attempts: number): Promise<TaskEnd> {
  const { verdict, commit } = terminal;
  const reason =
    verdict === "needs_more_context" && terminal.questions.length
      ? `${terminal.reason} Questions: ${terminal.questions.join(" | ")}`
      : terminal.reason;
  let planInvalid = false;
  const attemptId = terminal.gate?.attempt_id;
  if (verdict === "blocked" && attemptId) {
    const critic = await store
      .readAttemptJson(attemptId, "verifiers/critic.json", VerifierEnvelope)
      .catch(() => null);
    planInvalid =
      critic?.verifier === "critic" &&
      isCriticJudged(critic.native_payload) &&
      critic.native_payload.plan_invalid;
  }
  return { finished: true, verdict, reason, commit, attempts, planInvalid };
}

/** The task's pinned contract, read right after it landed (before any later task's coder ran). */
async function landedContract(repoRoot: string, taskId: string): Promise<Contract | null> {
  const run = await openTaskStore(repoRoot, taskId)
    .read("iterator_run")
    .catch(() => null);
  return run?.readiness?.contract ?? null;
}

/** What the task's model and coder used, across all its runs (its own run record's total). */
async function taskUsage(repoRoot: string, taskId: string): Promise<Usage> {
  const run = await openTaskStore(repoRoot, taskId)
    .read("iterator_run")
    .catch(() => null);
  return run?.usage.total ?? emptyUsage();
}

async function newPlanRun(
  repoRoot: string,
  brief: IdeaBrief,
  limits: ComposeLimits,
): Promise<Omit<PlanRun, "revision">> {
  const at = nowIso();
  return {
    artifact: "plan_run",
    plan_id: brief.id,
    request: brief.request,
    state: "planned",
    history: [{ state: "planned", at, reason: `plan approved: ${brief.tasks.length} tasks` }],
    integration_branch: planBranch(brief.id),
    base_commit: await headCommit(repoRoot),
    limits: {
      max_implement_attempts: limits.maxImplementAttempts,
      max_replans: limits.maxReplans,
      min_tasks_for_compose: limits.minTasksForCompose,
    },
    tasks: brief.tasks.map((t) => pendingTask(brief.id, t)),
    verify: null,
    review: null,
    replans: [],
    usage: emptyUsage(),
    gave_up: false,
    terminal: null,
    created_at: at,
    updated_at: at,
  };
}

/** plan_run.json through its store: every change is a new revision, written before it is acted on. */
class PlanRecord {
  run!: PlanRun;
  constructor(
    private readonly store: ArtifactStore,
    private readonly onPlan: ((run: PlanRun) => void) | undefined,
  ) {}

  async open(create: () => Promise<Omit<PlanRun, "revision">>): Promise<void> {
    const existing = await this.store.read("plan_run");
    this.run = existing ?? (await this.store.write("plan_run", await create(), { expectedRevision: 0 }));
    this.onPlan?.(this.run);
  }

  async update(change: (run: PlanRun) => void): Promise<void> {
    const next = structuredClone(this.run);
    change(next);
    next.updated_at = nowIso();
    const { revision, ...value } = next;
    this.run = await this.store.write("plan_run", value, { expectedRevision: revision });
    this.onPlan?.(this.run);
  }
}

function setTask(run: PlanRun, index: number, patch: Partial<PlanTaskRun>): void {
  const task = run.tasks[index];
  if (task) run.tasks[index] = { ...task, ...patch };
}

function enter(run: PlanRun, state: PlanRunState, reason: string): void {
  run.state = state;
  run.history.push({ state, at: nowIso(), reason });
}

function end(run: PlanRun, state: PlanRunState, reason: string): void {
  enter(run, state, reason);
  run.terminal = { verdict: state, reason };
}

function addUsage(run: PlanRun, usage: Usage): void {
  const u = run.usage;
  run.usage = {
    input_tokens: u.input_tokens + usage.input_tokens,
    output_tokens: u.output_tokens + usage.output_tokens,
    total_tokens: u.total_tokens + usage.total_tokens,
    cost_usd: u.cost_usd + usage.cost_usd,
    calls: u.calls + usage.calls,
  };
}
