import { type BaseCheckpointSaver, END, START, StateGraph } from "@langchain/langgraph";
import type { IntakeDeps } from "./deps.js";
import { askNode } from "./nodes/ask.js";
import { iterateNode } from "./nodes/iterate.js";
import { ideaNode, insightNode, neitherNode } from "./nodes/records.js";
import { routeNode } from "./nodes/route.js";
import { IntakeState } from "./state.js";

/**
 * The intake graph (ARCHITECTURE §3): every message goes through the router to one lane. The
 * iterate lane is a node function around runIterate (its own thread, never a subgraph); when it
 * hands a request over, the turn continues in the insight or idea lane.
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
