import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { END, START, StateGraph } from "@langchain/langgraph";
import { defineNode } from "./lane/define-node.js";
import type { LaneDeps } from "./lane/deps.js";
import { ask } from "./nodes/ask.js";
import { code } from "./nodes/code.js";
import { commit } from "./nodes/commit.js";
import { frame } from "./nodes/frame.js";
import { gate } from "./nodes/gate.js";
import { handoff } from "./nodes/handoff.js";
import { observe } from "./nodes/observe.js";
import { readiness } from "./nodes/readiness.js";
import { repair } from "./nodes/repair.js";
import { replan } from "./nodes/replan.js";
import { verify } from "./nodes/verify.js";
import { IterateState } from "./state.js";

const ITERATE_NODES = [
  "frame",
  "observe",
  "readiness",
  "code",
  "verify",
  "gate",
  "replan",
  "repair",
  "commit",
  "handoff",
  "ask",
] as const;
export type IterateNodeName = (typeof ITERATE_NODES)[number];

/**
 * A part of the lane: start at `entry` and run only `nodes`; the run pauses (an interruptBefore)
 * at the first successor outside them. The playground runs one agent's nodes this way on the real
 * compiled graph, with its real routing and state merge.
 */
export interface LaneSubset {
  entry: IterateNodeName;
  nodes: readonly IterateNodeName[];
}

/**
 * The iterate lane (docs/architecture.md): wiring only. Every transition is decided by a node from
 * typed artifacts and verifier results; no model ever picks the next phase. Without `subset` it is
 * the whole lane from `frame`.
 */
export function buildIterateLane(deps: LaneDeps, checkpointer: BaseCheckpointSaver, subset?: LaneSubset) {
  const node = (name: string, body: Parameters<typeof defineNode>[2]) => defineNode(name, deps, body);
  const stopBefore = subset ? ITERATE_NODES.filter((n) => !subset.nodes.includes(n)) : [];
  return new StateGraph(IterateState)
    .addNode("frame", node("frame", frame), { ends: ["observe", "ask"] })
    .addNode("observe", node("observe", observe))
    .addNode("readiness", node("readiness", readiness), { ends: ["code", "ask", "handoff", END] })
    .addNode("code", node("code", code), { ends: ["verify", "code", END] })
    .addNode("verify", node("verify", verify), { ends: ["gate"] })
    .addNode("gate", node("gate", gate), { ends: ["commit", "repair", "replan", "code", END] })
    .addNode("replan", node("replan", replan), { ends: ["frame", END] })
    .addNode("repair", node("repair", repair), { ends: ["code", END] })
    .addNode("commit", node("commit", commit))
    .addNode("handoff", node("handoff", handoff))
    .addNode("ask", node("ask", ask), { ends: ["frame", END] })
    .addEdge(START, subset?.entry ?? "frame")
    .addEdge("observe", "readiness")
    .addEdge("commit", END)
    .addEdge("handoff", END)
    .compile({ checkpointer, interruptBefore: stopBefore });
}
