import { type BaseCheckpointSaver, END, START, StateGraph } from "@langchain/langgraph";
import type { IntakeDeps } from "./deps.js";
import { askNode } from "./nodes/ask.js";
import { ideaNode, insightNode, iterateNode } from "./nodes/lanes.js";
import { neitherNode } from "./nodes/neither.js";
import { routeNode } from "./nodes/route.js";
import { IntakeState } from "./state.js";

/**
 * The intake graph (docs/architecture.md) routes and records only: every message goes through the
 * router to one lane node, which calls that lane's runner and records the LaneOutcome it returned
 * (nodes/record-outcome.ts). The iterate lane keeps its own thread (thread id = task id, never a
 * subgraph); `needs_answers` pauses the conversation at `ask`, and a handoff continues the turn in
 * the insight or idea lane.
 */
export function buildIntakeGraph(deps: IntakeDeps, checkpointer: BaseCheckpointSaver) {
  return new StateGraph(IntakeState)
    .addNode("route", routeNode(deps), { ends: ["iterate", "insight", "idea", "neither"] })
    .addNode("iterate", iterateNode(deps), { ends: ["ask", "insight", "idea", END] })
    .addNode("ask", askNode, { ends: ["iterate"] })
    .addNode("insight", insightNode(deps), { ends: [END] })
    .addNode("idea", ideaNode(deps), { ends: [END] })
    .addNode("neither", neitherNode(deps), { ends: [END] })
    .addEdge(START, "route")
    .compile({ checkpointer });
}

export type IntakeGraph = ReturnType<typeof buildIntakeGraph>;
