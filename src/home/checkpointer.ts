import { existsSync } from "node:fs";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { redactDeep } from "../util/redact.js";
import { ensureDevflowDir, statePath } from "./paths.js";

/**
 * The repository's checkpointer: `.devflow/state.sqlite`, one file for every thread (iterate
 * lanes keyed by task id, chats by thread id). The caller closes it (`saver.db.close()`).
 */
export function openCheckpointer(repoRoot: string): SqliteSaver {
  ensureDevflowDir(repoRoot);
  return redacting(SqliteSaver.fromConnString(statePath(repoRoot)));
}

/** The checkpointer only if the repository has one already: reading must not create `.devflow/`. */
export function openExistingCheckpointer(repoRoot: string): SqliteSaver | null {
  const path = statePath(repoRoot);
  return existsSync(path) ? redacting(SqliteSaver.fromConnString(path)) : null;
}

type Serde = SqliteSaver["serde"];

/**
 * Every checkpoint, its metadata and every pending write (a node's error included) pass through
 * the serializer on their way into state.sqlite, so known secrets are redacted there (ADR 0030):
 * state fields hold coder output, model answers and error messages, and a crashed node's error
 * is stored as a write. Redacting the serialized JSON rather than the state keeps the live run's
 * values intact; a resumed run reads the redacted ones, like the artifacts.
 */
export function redactingSerde(inner: Serde): Serde {
  return {
    async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
      const [type, bytes] = await inner.dumpsTyped(data);
      if (type !== "json") return [type, bytes];
      const text = new TextDecoder().decode(bytes);
      const json: unknown = JSON.parse(text);
      const redacted = redactDeep(json);
      return redacted === json ? [type, bytes] : [type, new TextEncoder().encode(JSON.stringify(redacted))];
    },
    loadsTyped: (type, data) => inner.loadsTyped(type, data),
  };
}

function redacting(saver: SqliteSaver): SqliteSaver {
  saver.serde = redactingSerde(saver.serde);
  return saver;
}
