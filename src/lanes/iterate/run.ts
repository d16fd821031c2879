import { relative } from "node:path";
import { Command, INTERRUPT, isInterrupted } from "@langchain/langgraph";
import type { ConversationTurn, ExtraVerifier } from "../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../artifacts/store.js";
import { coderUnavailableError } from "../../coders/contract.js";
import { resolveCoder } from "../../coders/index.js";
import { DevflowError } from "../../errors/index.js";
import {
  assertTaskId,
  ensureDevflowDir,
  listTasks,
  lockTask,
  openCheckpointer,
  openTaskStore,
  processGroupsDir,
  taskDir,
  taskDirTaken,
  taskIdFromRequest,
} from "../../home/index.js";
import type { ModelGateway } from "../../models/contract.js";
import {
  buildModelGateway,
  type CassetteConsumption,
  type LiveModelClass,
  type ModelGatewayOptions,
} from "../../models/gateway.js";
import { withGroupLedger } from "../../process/group-ledger.js";
import { removeTaskClone, type TaskWorkspace } from "../../workspace/index.js";
import type { IterateOutcome, IterateResult } from "../outcome.js";
import { assertRequestSize, maxRequestBytes } from "../request-size.js";
import { buildIterateLane } from "./iterate-lane.js";
import { checkpointedCursor } from "./lane/cassette-cursor.js";
import { DEFAULT_LANE_OPTIONS, type LaneDeps, type LaneOptions } from "./lane/deps.js";
import { checkedExtraVerifiers } from "./lane/extra-verifiers.js";
import { Interruption } from "./lane/interruption.js";
import { type ProgressSink, Reporter } from "./lane/reporter.js";
import { createRunRecord, terminate, transition } from "./lane/run-record.js";
import { testTimeoutFromEnv } from "./lane/test-timeout.js";
import { lostCheckpointError } from "./lost-checkpoint.js";
import type { QuestionsInterrupt } from "./nodes/ask.js";
import { MAX_REPLANS } from "./nodes/replan.js";
import { cloneNewUrlTask, locateRepo, reportSetup, setUpTask } from "./task-setup.js";
import { finishedWithoutCheckout } from "./tasks/recorded-outcome.js";
import { UserRepoCheck } from "./user-repo-check.js";

/** How the iterate lane runs, whichever task it works on: one per CLI command or chat message. */
export interface IterateLaneSettings {
  /** Local path or git URL; default: the current directory. */
  repo: string;
  /** Where a URL is cloned (default "."). */
  baseDir: string;
  model: string;
  coder: string;
  mode: "live" | "replay" | "record";
  cassettePath?: string;
  lane: Partial<LaneOptions>;
  onProgress: ProgressSink;
  /**
   * The driver answers questions (a TTY, the chat): the lane pauses and returns `needs_answers`.
   * Otherwise a task that needs answers ends `needs_more_context` (exit 3).
   */
  interactive?: boolean;
  /** Asked once before the first coder run (chat without --yes); false ends the lane as blocked. */
  confirmCoder?: LaneDeps["confirmCoder"];
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** The request size cap in bytes (--max-request-bytes); default DEVFLOW_MAX_REQUEST_BYTES, else 64 KiB. */
  maxRequestBytes?: number;
  /** Endpoint limits (CLI flags); unset ones come from DEVFLOW_MODEL_* or the defaults. */
  modelLimits?: Pick<ModelGatewayOptions, "timeoutMs" | "budgetMs" | "maxRetries">;
  /** Inject a gateway (tests, playground); otherwise built from mode/model/cassette. */
  gateway?: ModelGateway;
}

/** A new task, or (`resume`) an existing one continued from its checkpoint. */
export interface IterateStart {
  request: string;
  taskId?: string;
  resume: boolean;
  /** Earlier turns of the conversation the request comes from (chat); the Framer reads them. */
  priorTurns?: ConversationTurn[];
  /** Scripts that must pass too (ADR 0056); a resumed task keeps the ones it started with. */
  extraVerifiers?: ExtraVerifier[];
  /** A new task starts from this commit, not the user's HEAD (the compose lane's stacking, ADR 0055). */
  baseCommit?: string;
}

export type IterateRunOptions = IterateLaneSettings & IterateStart;

/**
 * The iterate lane runner. `run` starts (or, with `resume`, continues) a task; `resume(taskId,
 * answer)` continues a task that returned `needs_answers` with the answer. Both return an
 * `IterateOutcome`. The model gateway is built once per lane and shared by run and resume, so
 * usage adds up and a replayed cassette continues where it stopped.
 */
export function iterateLane(settings: IterateLaneSettings) {
  let gateway = settings.gateway;
  // Built on first use: the builtin coder takes it when it is resolved, while a CLI coder's missing
  // binary is still reported before the model configuration is even looked at.
  // The live model (@langchain/openai, ~700 modules) is loaded before a run only when the lane
  // builds a live or recording gateway itself: a replay, or a caller's own gateway, never loads it.
  let liveModel: LiveModelClass | null = null;
  const loadLiveModel = async (): Promise<void> => {
    if (gateway || settings.mode === "replay" || liveModel) return;
    liveModel = (await import("../../models/live-chat-model.js")).EndpointChatOpenAI;
  };
  const modelGateway = (): ModelGateway =>
    (gateway ??= buildModelGateway(
      {
        mode: settings.mode,
        model: settings.model,
        ...settings.modelLimits,
        ...(settings.cassettePath ? { cassettePath: settings.cassettePath } : {}),
        env: settings.env ?? process.env,
      },
      liveModel,
    ));
  // A resume that only reports a recorded verdict asks the cassette nothing: no unused answers then.
  const progress = { ranGraph: false };
  return {
    run: async (start: IterateStart) => {
      await loadLiveModel();
      return runTask(settings, modelGateway, start, null, progress);
    },
    resume: async (taskId: string, answer: string | null) => {
      await loadLiveModel();
      return runTask(settings, modelGateway, { request: "", taskId, resume: true }, answer, progress);
    },
    /** Replay: the cassette's answers no call consumed, per role (the CLI warns about them). */
    unusedReplies: () =>
      progress.ranGraph && gateway && "unusedReplies" in gateway ? unusedOf(gateway) : {},
  };
}

const unusedOf = (gateway: ModelGateway): Partial<Record<string, number>> =>
  (gateway as ModelGateway & CassetteConsumption).unusedReplies();

/** One call: `iterateLane(opts).run(opts)`. */
export const runIterate = (opts: IterateRunOptions): Promise<IterateOutcome> => iterateLane(opts).run(opts);

/**
 * Everything that can be refused is checked before any model call: the request, the coder, the
 * model configuration, the repo, the task id.
 */
async function runTask(
  opts: IterateLaneSettings,
  modelGateway: () => ModelGateway,
  start: IterateStart,
  answer: string | null,
  progress: { ranGraph: boolean } = { ranGraph: false },
): Promise<IterateOutcome> {
  const request = start.request.trim();
  assertRequestSize(request, maxRequestBytes(opts.maxRequestBytes, opts.env ?? process.env));
  const extraVerifiers = checkedExtraVerifiers(start.extraVerifiers, opts.lane.maxExtraVerifiers);
  if (!request && !start.resume)
    throw new DevflowError(
      "REQUEST_EMPTY",
      'the request is empty: say what to change, e.g. devflow iterate "fix …"',
    );
  const coder = resolveCoder(opts.coder, {
    get models() {
      return modelGateway();
    },
  });
  const probe = await coder.probe();
  if (!probe.installed) {
    throw coderUnavailableError("CODER_NOT_INSTALLED", `coder "${coder.name}" is not installed`, probe.hint);
  }
  if (probe.authConfigured === false) {
    // Refuse before the Framer and Observer spend tokens on a task no coder could run.
    throw coderUnavailableError(
      "CODER_MISCONFIGURED",
      `coder "${coder.name}" has no credentials configured`,
      probe.hint,
    );
  }
  const gateway = modelGateway();

  const taskId = assertTaskId(start.taskId ?? requestTaskId(request));
  const located = await locateRepo(opts, taskId);
  const artifactDir = taskDir(located.repoRoot, taskId);
  // A task dir with no run record is one a crash stopped while it was set up: resumable (task-setup.ts).
  if (start.resume && !taskDirTaken(located.repoRoot, taskId)) {
    throw new DevflowError(
      "TASK_NOT_FOUND",
      `no task "${taskId}" to resume in ${located.repoRoot}; known tasks: ${knownTasks(located.repoRoot)}`,
    );
  }
  const done = start.resume ? await finishedWithoutCheckout(located.repoRoot, taskId, gateway) : null;
  if (done) return done;
  progress.ranGraph = true;
  if (!start.resume && taskDirTaken(located.repoRoot, taskId)) {
    throw new DevflowError(
      "TASK_EXISTS",
      `task "${taskId}" already exists in ${located.repoRoot}: pass --resume to continue it, or --task-id <id> for a new task`,
    );
  }
  const cloned = await cloneNewUrlTask(located, start, opts.baseDir, taskId);
  // Until the run is recorded the clone holds nothing to resume: a failed setup removes it again.
  let recorded = start.resume;
  ensureDevflowDir(located.repoRoot);
  const store = openTaskStore(located.repoRoot, taskId);
  // A failed setup before the run is recorded removes a fresh clone again (nothing to resume).
  const dropClone = async (error: unknown): Promise<never> => {
    if (cloned) await removeTaskClone(cloned);
    throw error;
  };
  // Opened before the lock: an unreadable state.sqlite is refused without leaving the lock held.
  const saver = await Promise.resolve()
    .then(() => openCheckpointer(located.repoRoot))
    .catch(dropClone);
  const release = await lockTask(located.repoRoot, taskId).catch(dropClone);
  try {
    const envTestTimeout = testTimeoutFromEnv(opts.env ?? process.env);
    const lane: LaneOptions = {
      ...DEFAULT_LANE_OPTIONS,
      ...(envTestTimeout === undefined ? {} : { commandTimeoutMs: envTestTimeout }),
      ...opts.lane,
      interactive: Boolean(opts.interactive),
    };
    const record = async (workspace: TaskWorkspace) => {
      await createRunRecord(store, {
        taskId,
        workspace,
        lane,
        coder: coder.name,
        model: gateway.modelName("framer"),
        reason: "run started",
      });
      recorded = true;
    };
    const setup = await setUpTask({
      start,
      request,
      located,
      store,
      saver,
      taskId,
      cloned,
      env: opts.env,
      record,
    });
    const { workspace } = setup;

    const reporter = new Reporter(taskId, opts.onProgress, store);
    // The user's checkout is compared at every exit with how it was when the task started (ADR
    // 0020); for a URL that is devflow's clone, which stands in for the repository behind the URL
    // and holds the result branch the user fetches (ADR 0036).
    const repoCheck = await UserRepoCheck.start(located.repoRoot, artifactDir, reporter);
    await reportSetup(reporter, setup);
    let outcome: IterateOutcome;
    const interruption = new Interruption(opts.signal, reporter, taskId);
    try {
      // Every child the lane starts records its process group here before devflow waits on it.
      outcome = await withGroupLedger(processGroupsDir(located.repoRoot, taskId), driveGraph);
    } catch (error) {
      const finding = await repoCheck?.finish();
      if (finding) throw new DevflowError("USER_REPO_CHANGED", finding.summary, { cause: error });
      throw await interruption.errorFor(error);
    } finally {
      interruption.dispose();
    }
    const finding = await repoCheck?.finish();
    if (!finding) return outcome;
    await reporter.info(
      "repo",
      finding.summary,
      { finding: finding.finding, changes: finding.changes },
      { ok: false, runState: "blocked" },
    );
    const previous = (await store.read("iterator_run"))?.terminal;
    const terminal = await terminate(store, gateway, {
      verdict: "blocked",
      reason: previous
        ? `${finding.summary}; the run had ended ${previous.verdict}: ${previous.reason}`
        : finding.summary,
      branch: workspace.branch,
      commit: previous?.commit ?? null,
    });
    await gateway.flush();
    const run = await store.read("iterator_run");
    return {
      kind: "finished",
      lane: "iterate",
      result: {
        taskId,
        terminal,
        artifactDir,
        worktree: workspace.worktree,
        branch: workspace.branch,
        attempts: run?.attempts.length ?? 0,
        usage: gateway.usage(),
      },
    };

    async function driveGraph(): Promise<IterateOutcome> {
      const graph = buildIterateLane(
        {
          gateway,
          coder,
          store,
          reporter,
          options: lane,
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(opts.confirmCoder ? { confirmCoder: opts.confirmCoder } : {}),
        },
        saver,
      );
      const config = {
        configurable: { thread_id: taskId },
        recursionLimit: 40 + 12 * (lane.maxJudgeAttempts + lane.maxEscalations) + 20 * MAX_REPLANS,
        durability: "sync" as const,
        // No `signal` here: LangGraph would give up on the graph at once while the running node goes
        // on stopping its children in the background (issue 11). The nodes get the signal (deps) and
        // stop; defineNode starts no node after it.
      };
      const snapshot = await graph.getState(config);
      // A resumed replay or recording continues the cassette where the checkpoint stands (ADR 0035).
      gateway.resumeCassette(checkpointedCursor(snapshot));
      const [pending] = snapshot.tasks.flatMap((t) => t.interrupts);
      const waiting = pending?.value as QuestionsInterrupt | undefined;
      // A task paused at a question and no answer: an interactive driver is asked again (nothing
      // runs); otherwise the paused node re-runs non-interactively and ends the task with the questions.
      if (waiting && answer === null && lane.interactive) return needsAnswers(waiting);
      const input: Parameters<typeof graph.invoke>[0] =
        waiting && answer !== null
          ? new Command({ resume: answer })
          : snapshot.next.length > 0 || snapshot.tasks.length > 0
            ? null
            : {
                taskId,
                request,
                priorTurns: start.priorTurns ?? [],
                extraVerifiers,
                repoRoot: workspace.repoRoot,
                worktree: workspace.worktree,
                branch: workspace.branch,
                baseCommit: workspace.baseCommit,
              };
      const alreadyDone =
        start.resume && snapshot.next.length === 0 && (await store.read("iterator_run"))?.terminal;
      // No checkpoint at all (state.sqlite lost) and no verdict: refused before any model call.
      if (start.resume && !setup.startsFresh && !alreadyDone && snapshot.createdAt === undefined)
        throw await lostCheckpointError(located.repoRoot, taskId, store);
      if (!alreadyDone) {
        const out = await graph.invoke(input, config);
        const question = isInterrupted<QuestionsInterrupt>(out) ? out[INTERRUPT][0]?.value : undefined;
        if (question) {
          // Recorded after the pause (the asking node cannot write before it: it re-runs on
          // resume), so `devflow runs`/`show` list the task as waiting, not as interrupted.
          if (question.kind === "needs_more_context")
            await transition(
              store,
              "needs_more_context",
              `waiting for answers to ${question.questions.length} question(s)`,
            );
          await gateway.flush();
          return needsAnswers(question);
        }
      }
      await gateway.flush();

      const run = await store.read("iterator_run");
      if (!run?.terminal)
        throw new Error(`the lane stopped without a verdict for task ${taskId}; resume with --resume`);
      const result: IterateResult = {
        taskId,
        terminal: run.terminal,
        artifactDir,
        worktree: workspace.worktree,
        branch: workspace.branch,
        attempts: run.attempts.length,
        usage: gateway.usage(),
      };
      const handoff = await handoffOf(located.repoRoot, store, result);
      return handoff ?? { kind: "finished", lane: "iterate", result };
    }
  } finally {
    await release();
    if (cloned && !recorded) await removeTaskClone(cloned);
  }
}

const needsAnswers = (q: QuestionsInterrupt): IterateOutcome => ({
  kind: "needs_answers",
  lane: "iterate",
  task_id: q.taskId,
  asks: q.kind,
  questions: q.questions,
});

/** A promoted or rerouted task continues in the lane its promotion_handoff.json names. */
async function handoffOf(
  repoRoot: string,
  store: ArtifactStore,
  result: IterateResult,
): Promise<IterateOutcome | null> {
  const { verdict, reason } = result.terminal;
  if (verdict !== "promoted" && verdict !== "rerouted") return null;
  const handoff = await store.read("promotion_handoff");
  if (!handoff) return null;
  const task = await store.read("task_artifact");
  return {
    kind: "handoff",
    lane: "iterate",
    target: handoff.target_lane,
    request: task?.request ?? "",
    reason,
    path: relative(repoRoot, store.path("promotion_handoff")),
    result,
  };
}

function knownTasks(repoRoot: string): string {
  const ids = listTasks(repoRoot);
  return ids.length ? ids.join(", ") : "(none)";
}

/** Default task id: the slug of the request (docs/origins.md#00-junie-orchestrator: "Add login form" → add-login-form). */
function requestTaskId(request: string): string {
  const id = taskIdFromRequest(request);
  if (!id)
    throw new DevflowError(
      "TASK_ID_INVALID",
      "the request has no letters or digits to name the task; pass --task-id <id>",
    );
  return id;
}
