import { isDeepStrictEqual } from "node:util";
import {
  type AttemptSummary,
  emptyUsage,
  type GateVerdict,
  type IteratorRun,
  type RunState,
  type Terminal,
} from "../../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../../artifacts/store.js";
import type { ModelGateway } from "../../../models/contract.js";
import { nowIso } from "../../../util/time.js";
import type { TaskWorkspace } from "../../../workspace/index.js";
import type { LaneOptions } from "./deps.js";

type RunDraft = Omit<IteratorRun, "revision">;

/** Read-modify-write of iterator_run.json based on the revision just read, so a stale writer is refused. */
export async function updateRun(store: ArtifactStore, mutate: (run: RunDraft) => void): Promise<IteratorRun> {
  const current = await store.read("iterator_run");
  if (!current)
    throw new Error("iterator_run.json is missing: the run record must be created before the lane starts");
  const { revision, ...draft } = current;
  mutate(draft);
  draft.updated_at = nowIso();
  return store.write("iterator_run", draft, { expectedRevision: revision });
}

export function pushState(run: RunDraft, state: RunState, reason: string): void {
  if (run.run_state === state && run.state_history.at(-1)?.reason === reason) return;
  run.run_state = state;
  run.state_history.push({ state, at: nowIso(), reason });
}

export async function transition(
  store: ArtifactStore,
  state: RunState,
  reason: string,
): Promise<IteratorRun> {
  return updateRun(store, (run) => pushState(run, state, reason));
}

/** Books the gateway's usage into the run record (total and per role). */
export function bookUsage(run: RunDraft, gateway: ModelGateway): void {
  const usage = gateway.usage();
  run.usage = { total: usage.total, by_role: usage.by_role, by_attempt: usage.by_attempt };
}

export async function recordAttempt(store: ArtifactStore, summary: AttemptSummary, gateway: ModelGateway) {
  return updateRun(store, (run) => {
    run.attempts = run.attempts.filter((a) => a.attempt_id !== summary.attempt_id);
    run.attempts.push(summary);
    bookUsage(run, gateway);
  });
}

export interface TerminalInput {
  verdict: Terminal["verdict"];
  reason: string;
  branch?: string | null;
  commit?: string | null;
  questions?: string[];
  /** The gate verdict that decided the run (completed, exhausted, or blocked on plan_invalid), carried unchanged. */
  gate?: GateVerdict;
}

const STATE_FOR_VERDICT: Record<Terminal["verdict"], RunState> = {
  completed: "completed",
  blocked: "blocked",
  needs_more_context: "needs_more_context",
  exhausted: "exhausted",
  promoted: "promoted",
  rerouted: "rerouted",
};

/** Every way out of the lane goes through here: a terminal verdict with a reason, never a silent stop. */
export async function terminate(
  store: ArtifactStore,
  gateway: ModelGateway,
  input: TerminalInput,
): Promise<Terminal> {
  const terminal: Terminal = {
    verdict: input.verdict,
    reason: input.reason,
    branch: input.branch ?? null,
    commit: input.commit ?? null,
    questions: input.questions ?? [],
    ...(input.gate ? { gate: input.gate } : {}),
    at: nowIso(),
  };
  // A node re-run after a crash that came after its terminate() finds the same verdict recorded:
  // that record stands (no second revision, so a handoff's citation of it stays exact).
  const current = await store.read("iterator_run");
  const recorded = current?.terminal;
  if (recorded && current.run_state === STATE_FOR_VERDICT[input.verdict] && sameTerminal(recorded, terminal))
    return recorded;
  await updateRun(store, (run) => {
    pushState(run, STATE_FOR_VERDICT[input.verdict], input.reason);
    run.terminal = terminal;
    bookUsage(run, gateway);
  });
  return terminal;
}

/** The same verdict, reason, branch, commit, questions and gate verdict (the time aside). */
function sameTerminal(a: Terminal, b: Terminal): boolean {
  const { at: _a, ...x } = a;
  const { at: _b, ...y } = b;
  return isDeepStrictEqual(x, y);
}

export interface RunRecordSetup {
  taskId: string;
  workspace: TaskWorkspace;
  lane: LaneOptions;
  coder: string;
  model: string;
  /** Why the run record starts here (first state_history entry). */
  reason: string;
}

/** iterator_run.json r1: written once when a task starts, before the lane's first node. */
export async function createRunRecord(store: ArtifactStore, setup: RunRecordSetup): Promise<IteratorRun> {
  const now = nowIso();
  const { lane, workspace } = setup;
  return store.write(
    "iterator_run",
    {
      artifact: "iterator_run",
      task_id: setup.taskId,
      run_state: "framing",
      state_history: [{ state: "framing", at: now, reason: setup.reason }],
      readiness: null,
      limits: {
        max_judge_attempts: lane.maxJudgeAttempts,
        max_timeout_escalations: lane.maxEscalations,
        base_timeout_ms: lane.baseTimeoutMs,
      },
      workspace: {
        repo: workspace.repoRoot,
        worktree: workspace.worktree,
        branch: workspace.branch,
        base_commit: workspace.baseCommit,
        seam_commit: null,
      },
      coder_backend: setup.coder,
      model: setup.model,
      attempts: [],
      terminal: null,
      usage: { total: emptyUsage(), by_role: {}, by_attempt: {} },
      created_at: now,
      updated_at: now,
    },
    { expectedRevision: 0 },
  );
}
