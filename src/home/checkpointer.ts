import { existsSync } from "node:fs";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { DevflowError } from "../errors/index.js";
import { redactDeep } from "../util/redact.js";
import { ensureDevflowDir, statePath } from "./paths.js";

/**
 * The repository's checkpointer: `.devflow/state.sqlite`, one file for every thread (iterate
 * lanes keyed by task id, chats by thread id). The caller closes it (`saver.db.close()`).
 */
export function openCheckpointer(repoRoot: string): SqliteSaver {
  ensureDevflowDir(repoRoot);
  return readable(redacting(SqliteSaver.fromConnString(statePath(repoRoot))), statePath(repoRoot));
}

/** The checkpointer only if the repository has one already: reading must not create `.devflow/`. */
export function openExistingCheckpointer(repoRoot: string): SqliteSaver | null {
  const path = statePath(repoRoot);
  return existsSync(path) ? readable(redacting(SqliteSaver.fromConnString(path)), path) : null;
}

// SQLite's result codes for a file that is not (or no longer) a database.
const UNREADABLE_CODES = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);

/**
 * Reads the schema version once, so a garbage or corrupt state.sqlite is reported here, with its
 * path and the fix, rather than as SQLite's bare "file is not a database" from the first node.
 */
function readable(saver: SqliteSaver, path: string): SqliteSaver {
  try {
    saver.db.pragma("schema_version");
    return saver;
  } catch (error) {
    const code = typeof error === "object" && error !== null ? Reflect.get(error, "code") : undefined;
    saver.db.close();
    if (typeof code !== "string" || !UNREADABLE_CODES.has(code)) throw error;
    const companions = ["-wal", "-shm"].filter((suffix) => existsSync(`${path}${suffix}`));
    const moves = [path, ...companions.map((suffix) => `${path}${suffix}`)]
      .map((file) => `mv ${file} ${file}.corrupt`)
      .join(" && ");
    throw new DevflowError(
      "STATE_UNREADABLE",
      `${path} is not a readable SQLite database (${code}); devflow keeps its checkpoints and chat threads there. Move it aside and run again: ${moves} (tasks that were running then have to be started again)`,
      { cause: error },
    );
  }
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
