import { Command } from "@langchain/langgraph";
import type { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { ConversationTurn } from "../../artifacts/schemas/index.js";
import { DevflowError, describeError } from "../../errors/index.js";
import {
  isTaskId,
  lockThread,
  type OwnedLock,
  openCheckpointer,
  openExistingCheckpointer,
  type ThreadInfo,
  ThreadStore,
  taskExists,
} from "../../home/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { assertGitRepo } from "../../workspace/index.js";
import { assertRequestSize, maxRequestBytes } from "../request-size.js";
import type { IterateSettings } from "./deps.js";
import type { EmitIntakeEvent } from "./events.js";
import { buildIntakeGraph, type IntakeGraph } from "./intake-graph.js";
import { IntakeQuestions } from "./nodes/ask.js";
import type { LaneResult, RouteRecord } from "./state.js";
import { toTurns, userTurn } from "./turns.js";

export interface IntakeSessionOptions {
  /** A path inside a git working tree; the conversation belongs to that repository. */
  repo: string;
  /** Continue this thread; absent: start a new one. */
  threadId?: string;
  gateway: ModelGateway;
  iterate: IterateSettings;
  emit: EmitIntakeEvent;
}

/**
 * One chat conversation on one repository: sends messages through the intake graph and reads the
 * thread back. Turns, routes and lane results are checkpointed in `.devflow/state.sqlite` (thread
 * id = chat thread id), so a thread continues after a restart with its earlier turns in context.
 */
export class IntakeSession {
  private signal: AbortSignal = new AbortController().signal;
  /** Set when a lane of the running turn ended failed: the graph finishes, the turn still failed. */
  private laneFailed = false;
  private readonly graph: IntakeGraph;

  private constructor(
    readonly repoRoot: string,
    readonly thread: ThreadInfo,
    private readonly saver: SqliteSaver,
    private readonly threads: ThreadStore,
    private readonly lock: OwnedLock,
    private readonly opts: IntakeSessionOptions,
  ) {
    this.graph = buildIntakeGraph(
      {
        repoRoot,
        gateway: opts.gateway,
        emit: (event) => {
          if (event.type === "lane_result" && event.outcome === "failed") this.laneFailed = true;
          opts.emit(event);
        },
        signal: () => this.signal,
        iterate: opts.iterate,
      },
      saver,
    );
  }

  /**
   * Refuses a path that is not a git repository, an unknown thread id (listing the known ones) and
   * a thread another live process has open (its lock, ADR 0035): two processes on one thread would
   * interleave their checkpoints and lose or garble turns.
   */
  static async open(opts: IntakeSessionOptions): Promise<IntakeSession> {
    const repoRoot = await assertGitRepo(opts.repo);
    const saver = openCheckpointer(repoRoot);
    const threads = new ThreadStore(saver.db);
    let thread: ThreadInfo;
    if (opts.threadId !== undefined) {
      const found = threads.get(opts.threadId);
      if (!found) {
        const known = threads.list();
        saver.db.close();
        throw unknownThread(opts.threadId, repoRoot, known);
      }
      thread = found;
    } else {
      thread = threads.create();
    }
    let lock: OwnedLock;
    try {
      lock = await lockThread(repoRoot, thread.id);
    } catch (error) {
      if (opts.threadId === undefined) threads.removeIfEmpty(thread.id);
      saver.db.close();
      throw error;
    }
    return new IntakeSession(repoRoot, thread, saver, threads, lock, opts);
  }

  /** The repository's chat threads, most recent first, without creating anything on disk. */
  static async listThreads(repo: string): Promise<{ repoRoot: string; threads: ThreadInfo[] }> {
    const repoRoot = await assertGitRepo(repo);
    const saver = openExistingCheckpointer(repoRoot);
    if (!saver) return { repoRoot, threads: [] };
    try {
      return { repoRoot, threads: new ThreadStore(saver.db).list() };
    } finally {
      saver.db.close();
    }
  }

  /**
   * Refuses an unknown thread id (listing the known ones) without opening a session, so a caller
   * can check `--thread` before it sets up anything else (the model gateway).
   */
  static async assertThread(repo: string, threadId: string): Promise<void> {
    const { repoRoot, threads } = await IntakeSession.listThreads(repo);
    if (!threads.some((t) => t.id === threadId)) throw unknownThread(threadId, repoRoot, threads);
  }

  /**
   * Handles one message: a new message is routed to a lane; while the iterate lane waits for
   * answers, the message is the answer and resumes it. Returns false when the turn failed (the
   * graph threw, or a lane ended with outcome "failed").
   */
  async send(message: string, signal: AbortSignal): Promise<boolean> {
    // Checked before anything is routed or stored: a message (or an answer) is copied into every
    // prompt and checkpoint of the turn, like an iterate request (limits.max_request_bytes).
    try {
      assertRequestSize(message, maxRequestBytes(this.opts.iterate.maxRequestBytes, process.env));
    } catch (error) {
      this.opts.emit({ type: "error", lane: null, message: describeError(error) });
      return false;
    }
    const pending = await this.pendingQuestions();
    return this.run(pending ? new Command({ resume: message }) : { messages: [userTurn(message)] }, signal);
  }

  /** Continues an iterate task of this repository that stopped (Ctrl-C, crash) from its checkpoint. */
  async resumeTask(taskId: string, signal: AbortSignal): Promise<boolean> {
    if (await this.pendingQuestions())
      throw new DevflowError(
        "LANE_WAITING",
        "the iterate lane is waiting for answers: reply to its questions first",
      );
    if (!isTaskId(taskId) || !taskExists(this.repoRoot, taskId))
      throw new DevflowError(
        "TASK_NOT_FOUND",
        `no iterate task "${taskId}" in ${this.repoRoot} (/runs lists this thread's tasks)`,
      );
    return this.run({ resume: { task_id: taskId, answer: null } }, signal);
  }

  async pendingQuestions(): Promise<IntakeQuestions | null> {
    const snapshot = await this.graph.getState(this.config());
    const [pending] = snapshot.tasks.flatMap((t) => t.interrupts);
    return pending ? IntakeQuestions.parse(pending.value) : null;
  }

  async turns(): Promise<ConversationTurn[]> {
    return toTurns((await this.values())?.messages ?? []);
  }

  async results(): Promise<LaneResult[]> {
    return (await this.values())?.results ?? [];
  }

  async routes(): Promise<RouteRecord[]> {
    return (await this.values())?.routes ?? [];
  }

  /** Thread info as stored (title, turn count, times). */
  info(): ThreadInfo {
    return this.threads.get(this.thread.id) ?? this.thread;
  }

  /** Closes the state database and releases the thread's lock; a new thread that got no message is not kept. */
  close(): void {
    if (this.opts.threadId === undefined) this.threads.removeIfEmpty(this.thread.id);
    this.saver.db.close();
    this.lock.releaseSync();
  }

  private async run(input: Parameters<IntakeGraph["invoke"]>[0], signal: AbortSignal): Promise<boolean> {
    this.signal = signal;
    this.laneFailed = false;
    try {
      await this.graph.invoke(input, this.config());
      return !this.laneFailed;
    } catch (error) {
      this.opts.emit({ type: "error", lane: null, message: describeError(error) });
      return false;
    } finally {
      const turns = await this.turns();
      const first = turns.find((t) => t.role === "user")?.content ?? "";
      this.threads.touch(this.thread.id, first, turns.filter((t) => t.role === "user").length);
    }
  }

  private async values() {
    const snapshot = await this.graph.getState(this.config());
    return Object.keys(snapshot.values).length ? snapshot.values : null;
  }

  private config() {
    return { configurable: { thread_id: this.thread.id }, durability: "sync" as const };
  }
}

function unknownThread(threadId: string, repoRoot: string, known: ThreadInfo[]): DevflowError {
  return new DevflowError(
    "THREAD_NOT_FOUND",
    `no chat thread "${threadId}" in ${repoRoot}; ${known.length ? `known threads: ${known.map((t) => t.id).join(", ")}` : "there are no threads yet (run devflow chat without --thread to start one)"}`,
  );
}
