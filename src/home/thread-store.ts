import type { Database } from "better-sqlite3";
import { z } from "zod";
import { redact } from "../util/redact.js";
import { nowIso } from "../util/time.js";
import { newThreadId } from "./mint-id.js";

const ThreadRow = z.object({
  id: z.string(),
  title: z.string(),
  turns: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ThreadInfo = z.infer<typeof ThreadRow>;

/**
 * The list of chat threads of a repository, in a table of its own beside LangGraph's checkpoint
 * tables in `.devflow/state.sqlite`. The conversations themselves live in the checkpoints (thread
 * id = chat thread id); this table only makes them listable without reading every checkpoint.
 */
export class ThreadStore {
  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS chat_threads (
      id TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      turns INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
  }

  create(id: string = newThreadId()): ThreadInfo {
    const now = nowIso();
    this.db
      .prepare("INSERT INTO chat_threads (id, title, turns, created_at, updated_at) VALUES (?, '', 0, ?, ?)")
      .run(id, now, now);
    return { id, title: "", turns: 0, created_at: now, updated_at: now };
  }

  get(id: string): ThreadInfo | null {
    const row = this.db.prepare("SELECT * FROM chat_threads WHERE id = ?").get(id);
    return row === undefined ? null : ThreadRow.parse(row);
  }

  /** Most recently used first. */
  list(): ThreadInfo[] {
    return this.db
      .prepare("SELECT * FROM chat_threads ORDER BY updated_at DESC, id DESC")
      .all()
      .map((row) => ThreadRow.parse(row));
  }

  /** Forgets a thread nobody said anything in (a chat opened and left at once). */
  removeIfEmpty(id: string): void {
    this.db.prepare("DELETE FROM chat_threads WHERE id = ? AND turns = 0").run(id);
  }

  /** After a turn: the title is the thread's first message, kept once set. */
  touch(id: string, firstMessage: string, turns: number): void {
    // Redacted before the cut (ADR 0030): a pasted key must not survive as a title, whole or in part.
    const title = redact(firstMessage).replace(/\s+/g, " ").trim().slice(0, 80);
    this.db
      .prepare(
        "UPDATE chat_threads SET title = CASE WHEN title = '' THEN ? ELSE title END, turns = ?, updated_at = ? WHERE id = ?",
      )
      .run(title, turns, nowIso(), id);
  }
}
