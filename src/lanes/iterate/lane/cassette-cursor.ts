import type { StateSnapshot } from "@langchain/langgraph";
import { type CassetteCursor, ROLES } from "../../../models/contract.js";

/**
 * The cassette cursor a resumed run continues from (ADR 0035): the one checkpointed with the last
 * finished node, or further when a node of the pending step had already finished and its writes
 * were saved (LangGraph does not run it again, so its answers are used up). Cursors only grow, so
 * the furthest per role is the right one.
 */
export function checkpointedCursor(snapshot: StateSnapshot): CassetteCursor {
  const cursors = [snapshot.values, ...snapshot.tasks.map((t) => t.result)].map(cursorIn);
  const out: CassetteCursor = {};
  for (const role of ROLES) {
    const at = Math.max(0, ...cursors.map((c) => c[role] ?? 0));
    if (at > 0) out[role] = at;
  }
  return out;
}

function cursorIn(values: unknown): CassetteCursor {
  if (typeof values !== "object" || values === null || !("cassetteCursor" in values)) return {};
  const cursor = values.cassetteCursor;
  return typeof cursor === "object" && cursor !== null ? (cursor as CassetteCursor) : {};
}
