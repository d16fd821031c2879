import { Command } from "@langchain/langgraph";
import { z } from "zod";
import type { NodeStep } from "../../evals/types.js";
import { defineNode, type NodeBody } from "../../src/lanes/iterate/lane/define-node.js";
import type { LaneDeps } from "../../src/lanes/iterate/lane/deps.js";
import { IterateState, type IterateStateValue } from "../../src/lanes/iterate/state.js";

const StateShape = z.object(IterateState.fields);

/** A full lane state from the fields a node scenario sets; every other field takes the lane's default. */
export function nodeState(fields: z.input<typeof StateShape>): IterateStateValue {
  return StateShape.parse(fields);
}

export interface NodeChainResult {
  state: IterateStateValue;
  steps: NodeStep[];
}

/**
 * Runs lane nodes outside the graph, each wrapped by defineNode (so events.jsonl gets the same
 * start/end records as in a full run), following each node's own `goto` while it names a node in
 * `nodes`; the first successor outside `nodes` ends the chain. This is how a subagent scenario
 * exercises one agent's node alone.
 */
export async function runNodeChain(
  deps: LaneDeps,
  state: IterateStateValue,
  nodes: Record<string, NodeBody>,
  first: string,
): Promise<NodeChainResult> {
  const steps: NodeStep[] = [];
  let current: string | null = first;
  let value = state;
  while (current !== null) {
    const body: NodeBody | undefined = nodes[current];
    if (!body) break;
    const out: Awaited<ReturnType<ReturnType<typeof defineNode>>> = await defineNode(
      current,
      deps,
      body,
    )(value);
    const next: { update: Record<string, unknown>; goto: string | null } =
      out instanceof Command ? fromCommand(out) : { update: out, goto: null };
    const { update, goto } = next;
    value = StateShape.parse({ ...value, ...update });
    steps.push({ node: current, goto });
    current = goto;
  }
  return { state: value, steps };
}

function fromCommand(command: Command): { update: Record<string, unknown>; goto: string | null } {
  const update = Array.isArray(command.update) ? Object.fromEntries(command.update) : (command.update ?? {});
  const target = Array.isArray(command.goto) ? command.goto[0] : command.goto;
  return { update, goto: typeof target === "string" ? target : null };
}
