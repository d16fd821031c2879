import { existsSync } from "node:fs";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ensureDevflowDir, statePath } from "./paths.js";

/**
 * The repository's checkpointer: `.devflow/state.sqlite`, one file for every thread (iterate
 * lanes keyed by task id, chats by thread id). The caller closes it (`saver.db.close()`).
 */
export function openCheckpointer(repoRoot: string): SqliteSaver {
  ensureDevflowDir(repoRoot);
  return SqliteSaver.fromConnString(statePath(repoRoot));
}

/** The checkpointer only if the repository has one already: reading must not create `.devflow/`. */
export function openExistingCheckpointer(repoRoot: string): SqliteSaver | null {
  const path = statePath(repoRoot);
  return existsSync(path) ? SqliteSaver.fromConnString(path) : null;
}
