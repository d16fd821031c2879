/**
 * Regression: a stop (Ctrl-C, SIGTERM) during the seam-on-base run ended the task
 * `needs_more_context` for good (issue 10, item 1). Cause: the stop killed devflow's own seam run,
 * the observe node recorded it as "could not run", downgraded the observation to not_confirmed and
 * returned normally, so its result was checkpointed and `--resume` went on from it. Fix: defineNode
 * (the one wrapper every node runs in) throws instead of returning an update when the run's signal
 * was aborted while the body ran, so the checkpoint stays before the node and `--resume` re-runs it.
 */
import { describe, expect, it } from "vitest";
import type { IterateStateValue } from "../state.js";
import { defineNode } from "./define-node.js";
import type { LaneDeps } from "./deps.js";

function depsWith(signal: AbortSignal, phases: string[]): LaneDeps {
  return {
    signal,
    reporter: { emit: async (e: { phase: string }) => void phases.push(e.phase) },
    gateway: {
      usage: () => ({ total: { total_tokens: 0, cost_usd: 0 } }),
      cassetteCursor: () => ({}),
    },
  } as unknown as LaneDeps;
}

const state = {} as IterateStateValue;

describe("a node that finishes after the run was stopped", () => {
  it("is not checkpointed: the wrapper throws instead of returning the node's update", async () => {
    const stop = new AbortController();
    const phases: string[] = [];
    const node = defineNode("observe", depsWith(stop.signal, phases), async () => {
      stop.abort(); // the stop arrives while the seam runs; the body still returns a verdict
      return { line: "not confirmed (could not run)", update: { runState: "needs_more_context" } as never };
    });
    await expect(node(state)).rejects.toThrow(/observe was stopped before it finished; resume with --resume/);
    expect(phases).toEqual(["start", "error"]);
  });

  it("no node starts after the stop: its body never runs (a commit after Ctrl-C, issue 11)", async () => {
    const stop = new AbortController();
    stop.abort();
    const phases: string[] = [];
    let ran = false;
    const node = defineNode("commit", depsWith(stop.signal, phases), async () => {
      ran = true;
      return { line: "committed" };
    });
    await expect(node(state)).rejects.toThrow(/commit not started: the run was stopped/);
    expect(ran).toBe(false);
  });

  it("without a stop returns the update with the cassette cursor", async () => {
    const phases: string[] = [];
    const node = defineNode("observe", depsWith(new AbortController().signal, phases), async () => ({
      line: "confirmed",
      update: { runState: "observed" } as never,
    }));
    await expect(node(state)).resolves.toEqual({ runState: "observed", cassetteCursor: {} });
    expect(phases).toEqual(["start", "end"]);
  });
});
