import type { StateSnapshot } from "@langchain/langgraph";
import { type CassetteCalls, type CassetteCursor, ROLES } from "../../../models/contract.js";

/**
 * The cassette cursor a resumed run continues from (ADR 0035): the one checkpointed with the last
 * finished node, or further when a node of the pending step had already finished and its writes
 * were saved (LangGraph does not run it again, so its answers are used up). Cursors of one
 * cassette only grow, so the furthest per role is the right one. Null: no cassette was in use.
 */
export function checkpointedCursor(snapshot: StateSnapshot): CassetteCursor | null {
  const found = [snapshot.values, ...snapshot.tasks.map((t) => t.result)].flatMap(cursorIn);
  const cassette = found.at(-1)?.cassette;
  if (cassette === undefined) return null;
  const same = found.filter((c) => c.cassette === cassette);
  const calls: CassetteCalls = {};
  for (const role of ROLES) {
    const at = Math.max(0, ...same.map((c) => c.calls[role] ?? 0));
    if (at > 0) calls[role] = at;
  }
  return { cassette, calls };
}

function cursorIn(values: unknown): CassetteCursor[] {
  if (typeof values !== "object" || values === null || !("cassetteCursor" in values)) return [];
  const cursor = values.cassetteCursor as CassetteCursor | null;
  return cursor && typeof cursor.cassette === "string" && typeof cursor.calls === "object" ? [cursor] : [];
}
