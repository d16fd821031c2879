import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";

/**
 * Runs `fn` outside the calling graph node's LangGraph context. A graph invoked inside a node
 * otherwise inherits the node's config through AsyncLocalStorage and behaves as a subgraph: its
 * interrupts surface in the parent and its checkpoints land in the parent's thread instead of its
 * own (docs/architecture.md). The iterate lane must stay its own thread (thread id = task id) so that
 * `devflow iterate --resume` continues what the chat started, and the insight agent's own
 * createAgent graph must not write into the chat's thread either. Used in exactly one place:
 * `callLane` in nodes/lanes.ts, through which every lane runner is called (ADR 0011).
 */
export function detached<T>(fn: () => Promise<T>): Promise<T> {
  return AsyncLocalStorageProviderSingleton.getInstance().run(undefined, fn);
}
