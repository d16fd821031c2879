import { resolve } from "node:path";
import { Command, INTERRUPT, isInterrupted } from "@langchain/langgraph";
import type { Terminal } from "../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../artifacts/store.js";
import { CoderUnavailableError } from "../../coders/contract.js";
import { resolveCoder } from "../../coders/index.js";
import {
  assertTaskId,
  ensureDevflowDir,
  listTasks,
  lockTask,
  openCheckpointer,
  openTaskStore,
  taskDir,
  taskDirTaken,
  taskExists,
  taskIdFromRequest,
} from "../../home/index.js";
import type { ModelGateway, UsageSnapshot } from "../../models/contract.js";
import { createModelGateway } from "../../models/create-gateway.js";
import {
  assertGitRepo,
  cloneForTask,
  createTaskWorktree,
  isGitUrl,
  openTaskClone,
  openTaskWorktree,
  type TaskWorkspace,
} from "../../workspace/index.js";
import { UsageError } from "./errors.js";
import { buildIterateLane } from "./iterate-lane.js";
import { DEFAULT_LANE_OPTIONS, type LaneDeps, type LaneOptions } from "./lane/deps.js";
import { type ProgressSink, Reporter } from "./lane/reporter.js";
import { createRunRecord } from "./lane/run-record.js";
import type { QuestionsInterrupt } from "./nodes/ask.js";
import { MAX_REPLANS } from "./nodes/replan.js";

export interface IterateRunOptions {
  request: string;
  /** Local path or git URL; default: the current directory. */
  repo: string;
  /** Where a URL is cloned (default "."). */
  baseDir: string;
  taskId?: string;
  resume: boolean;
  model: string;
  coder: string;
  mode: "live" | "replay" | "record";
  cassettePath?: string;
  lane: Partial<LaneOptions>;
  onProgress: ProgressSink;
  /** Interactive runs answer needs_more_context questions here; absent = stop with exit 3. */
  onQuestions?: (q: QuestionsInterrupt) => Promise<string>;
  /** Earlier turns of the conversation the request comes from (chat); the Framer reads them. */
  priorTurns?: { role: "user" | "assistant"; content: string }[];
  /** Asked once before the first coder run (chat without --yes); false ends the lane as blocked. */
  confirmCoder?: LaneDeps["confirmCoder"];
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Inject a gateway (tests, playground); otherwise built from mode/model/cassette. */
  gateway?: ModelGateway;
}

export interface IterateRunResult {
  taskId: string;
  terminal: Terminal;
  artifactDir: string;
  worktree: string;
  branch: string;
  attempts: number;
  usage: UsageSnapshot;
}

/**
 * Runs (or resumes) the iterate lane for one request. Everything that can be refused is checked
 * before any model call: the request, the coder, the model configuration, the repo, the task id.
 */
export async function runIterate(opts: IterateRunOptions): Promise<IterateRunResult> {
  const request = opts.request.trim();
  if (!request && !opts.resume)
    throw new UsageError('the request is empty: say what to change, e.g. devflow iterate "fix …"');
  // The gateway is built on first use: the builtin coder takes it when it is resolved, while a CLI
  // coder's missing binary is still reported before the model configuration is even looked at.
  let runGateway = opts.gateway;
  const modelGateway = (): ModelGateway =>
    (runGateway ??= createModelGateway({
      mode: opts.mode,
      model: opts.model,
      ...(opts.cassettePath ? { cassettePath: opts.cassettePath } : {}),
      env: opts.env ?? process.env,
    }));
  const coder = resolveCoder(opts.coder, {
    get models() {
      return modelGateway();
    },
  });
  const probe = await coder.probe();
  if (!probe.installed) {
    throw new CoderUnavailableError(`coder "${coder.name}" is not installed`, probe.hint);
  }
  if (probe.authConfigured === false) {
    // Refuse before the Framer and Observer spend tokens on a task no coder could run.
    throw new CoderUnavailableError(`coder "${coder.name}" has no credentials configured`, probe.hint);
  }
  const gateway = modelGateway();

  const taskId = assertTaskId(opts.taskId ?? requestTaskId(request));
  const located = await locateRepo(opts, taskId);
  const artifactDir = taskDir(located.repoRoot, taskId);
  if (opts.resume && !taskExists(located.repoRoot, taskId)) {
    throw new UsageError(
      `no task "${taskId}" to resume in ${located.repoRoot}; known tasks: ${knownTasks(located.repoRoot)}`,
    );
  }
  if (!opts.resume && taskDirTaken(located.repoRoot, taskId)) {
    throw new UsageError(
      `task "${taskId}" already exists in ${located.repoRoot}: pass --resume to continue it, or --task-id <id> for a new task`,
    );
  }
  ensureDevflowDir(located.repoRoot);
  const store = openTaskStore(located.repoRoot, taskId);
  const release = await lockTask(located.repoRoot, taskId);
  const saver = openCheckpointer(located.repoRoot);
  try {
    const workspace = await prepareWorkspace(opts, located, store, taskId);
    const lane: LaneOptions = {
      ...DEFAULT_LANE_OPTIONS,
      ...opts.lane,
      interactive: Boolean(opts.onQuestions),
    };
    if (!opts.resume)
      await createRunRecord(store, {
        taskId,
        workspace,
        lane,
        coder: coder.name,
        model: gateway.modelName("framer"),
        reason: "run started",
      });

    const reporter = new Reporter(taskId, opts.onProgress, store);
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
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    const snapshot = await graph.getState(config);
    let input: Parameters<typeof graph.invoke>[0] =
      snapshot.next.length > 0 || snapshot.tasks.length > 0
        ? null
        : {
            taskId,
            request,
            priorTurns: opts.priorTurns ?? [],
            repoRoot: workspace.repoRoot,
            worktree: workspace.worktree,
            branch: workspace.branch,
            baseCommit: workspace.baseCommit,
          };
    const pending = snapshot.tasks.flatMap((t) => t.interrupts);
    if (pending.length && opts.onQuestions) {
      input = new Command({ resume: await opts.onQuestions(pending[0]?.value as QuestionsInterrupt) });
    }
    const alreadyDone =
      opts.resume && snapshot.next.length === 0 && (await store.read("iterator_run"))?.terminal;
    while (!alreadyDone) {
      const out = await graph.invoke(input, config);
      if (!isInterrupted<QuestionsInterrupt>(out)) break;
      const question = out[INTERRUPT][0]?.value;
      if (!question || !opts.onQuestions) break;
      input = new Command({ resume: await opts.onQuestions(question) });
    }
    await gateway.flush();

    const run = await store.read("iterator_run");
    if (!run?.terminal)
      throw new Error(`the lane stopped without a verdict for task ${taskId}; resume with --resume`);
    return {
      taskId,
      terminal: run.terminal,
      artifactDir,
      worktree: workspace.worktree,
      branch: workspace.branch,
      attempts: run.attempts.length,
      usage: gateway.usage(),
    };
  } finally {
    await release();
  }
}

interface LocatedRepo {
  repoRoot: string;
  url: string | null;
}

async function locateRepo(opts: IterateRunOptions, taskId: string): Promise<LocatedRepo> {
  if (isGitUrl(opts.repo)) {
    const repoRoot = resolve(opts.baseDir, taskId);
    return { repoRoot, url: opts.repo };
  }
  return { repoRoot: await assertGitRepo(resolve(opts.repo)), url: null };
}

async function prepareWorkspace(
  opts: IterateRunOptions,
  located: LocatedRepo,
  store: ArtifactStore,
  taskId: string,
): Promise<TaskWorkspace> {
  if (opts.resume) {
    const run = await store.read("iterator_run");
    if (!run) throw new UsageError(`task ${taskId} has no iterator_run.json to resume from`);
    const baseCommit = run.workspace.base_commit;
    return located.url
      ? openTaskClone({ cloneDir: located.repoRoot, taskId, baseCommit })
      : openTaskWorktree({ repoRoot: located.repoRoot, taskId, baseCommit });
  }
  if (located.url) return cloneForTask({ url: located.url, baseDir: resolve(opts.baseDir), taskId });
  return createTaskWorktree({ repoRoot: located.repoRoot, taskId });
}

function knownTasks(repoRoot: string): string {
  const ids = listTasks(repoRoot);
  return ids.length ? ids.join(", ") : "(none)";
}

/** Default task id: the slug of the request (seeds/00: "Add login form" → add-login-form). */
function requestTaskId(request: string): string {
  const id = taskIdFromRequest(request);
  if (!id) throw new UsageError("the request has no letters or digits to name the task; pass --task-id <id>");
  return id;
}
