import { Command, isGraphInterrupt } from "@langchain/langgraph";
import { type KillPoint, killPoint } from "../../../util/test-kill-point.js";
import type { IterateStateUpdate, IterateStateValue } from "../state.js";
import type { LaneDeps } from "./deps.js";

/** What a node function returns: the state update, where to go next (if it decides), and its progress line. */
export interface NodeOutcome {
  update?: IterateStateUpdate;
  goto?: string;
  /** e.g. "task_artifact r1 (error_fix)": shown after the node name and ✓/✗. */
  line: string;
  ok?: boolean;
  runState?: string;
  attemptId?: string;
  detail?: Record<string, unknown>;
}

export type NodeBody = (state: IterateStateValue, deps: LaneDeps) => Promise<NodeOutcome>;

/**
 * Wraps a node body with the bookkeeping every node shares: start/end events with duration and the
 * tokens and dollars spent inside the node, and the cassette cursor checkpointed with the node's
 * update (ADR 0035). Nodes stay about their one job.
 */
export function defineNode(name: string, deps: LaneDeps, body: NodeBody) {
  return async (state: IterateStateValue): Promise<IterateStateUpdate | Command> => {
    // After a stop no node starts: the checkpoint stays where the stop found it (ADR 0043).
    if (deps.signal?.aborted)
      throw new Error(`${name} not started: the run was stopped; resume with --resume`);
    const started = performance.now();
    const usageBefore = deps.gateway.usage();
    const before = usageBefore.total;
    await deps.reporter.emit({
      node: name,
      phase: "start",
      ok: true,
      outcome: null,
      durationMs: null,
      runState: null,
      attemptId: null,
      tokens: 0,
      costUsd: 0,
      detail: {},
    });
    const spent = () => {
      const usage = deps.gateway.usage();
      const after = usage.total;
      return {
        tokens: after.total_tokens - before.total_tokens,
        costUsd: Math.max(0, after.cost_usd - before.cost_usd),
        // For the daemon's spend ledger (ADR 0053): how many of the node's calls had an unknown cost.
        calls: after.calls - before.calls,
        unknownCostCalls: (usage.unknown_cost_calls ?? 0) - (usageBefore.unknown_cost_calls ?? 0),
      };
    };
    try {
      const out = await body(state, deps);
      // A node that returns after the run was told to stop (Ctrl-C, SIGTERM) saw its seam or test
      // runs killed ("could not run"): its result must not be checkpointed, or --resume would keep a
      // verdict the stop caused (issue 10: an aborted seam-on-base run became a not_confirmed
      // observation for good). Thrown instead, the checkpoint stays before this node and --resume
      // runs it again.
      if (deps.signal?.aborted)
        throw new Error(`${name} was stopped before it finished; resume with --resume`);
      await deps.reporter.emit({
        node: name,
        phase: "end",
        ok: out.ok ?? true,
        outcome: out.line,
        durationMs: Math.round(performance.now() - started),
        runState: out.runState ?? null,
        attemptId: out.attemptId ?? null,
        ...spent(),
        detail: out.detail ?? {},
      });
      // The body and its end event are done, the checkpoint is not: the crash suite's boundary.
      killPoint(`${name}:end` as KillPoint);
      // Checkpointed in the same write as the node's update: a node that did not finish runs again
      // on --resume and gets (replay) or records (record) the answers after this cursor again.
      const update = { ...out.update, cassetteCursor: deps.gateway.cassetteCursor() };
      if (out.goto) return new Command({ update, goto: out.goto });
      return update;
    } catch (error) {
      // An interrupt is LangGraph's way of pausing for an answer, not a failure.
      if (isGraphInterrupt(error)) throw error;
      await deps.reporter.emit({
        node: name,
        phase: "error",
        ok: false,
        outcome: error instanceof Error ? error.message : String(error),
        durationMs: Math.round(performance.now() - started),
        runState: null,
        attemptId: null,
        ...spent(),
        detail: {},
      });
      throw error;
    }
  };
}
