import { END, MemorySaver } from "@langchain/langgraph";
import type { NodeStep } from "../../evals/types.js";
import {
  buildIterateLane,
  type IterateStateUpdate,
  type LaneDeps,
  type LaneSubset,
} from "../../src/index.js";

/**
 * Runs part of the real compiled iterate lane (buildIterateLane with a subset): the real routing,
 * state merge and node wrappers, pausing before the first node outside the subset. Returns the
 * nodes that ran, each with the successor it chose (`goto`), or null when it only followed a
 * fixed edge of the graph; a node that ended the lane chose END ("__end__").
 */
export async function runLaneSubset(
  deps: LaneDeps,
  subset: LaneSubset,
  input: IterateStateUpdate,
  threadId: string,
): Promise<NodeStep[]> {
  const lane = buildIterateLane(deps, new MemorySaver(), subset);
  const config = { configurable: { thread_id: threadId } };
  const ran: string[] = [];
  for await (const chunk of await lane.stream(input, { ...config, streamMode: "updates" })) {
    for (const node of Object.keys(chunk)) if (!node.startsWith("__")) ran.push(node);
  }
  const paused = await lane.getState(config);
  const fixedEdges = new Set([...lane.builder.edges].map(([from]) => String(from)));
  return ran.map((node, i) => {
    const next = ran[i + 1] ?? paused.next[0] ?? END;
    return { node, goto: fixedEdges.has(node) ? null : next };
  });
}
