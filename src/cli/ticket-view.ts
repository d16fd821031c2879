import type { TicketRecord } from "../artifacts/schemas/ticket.js";
import type { QueueEntry } from "../daemon/ticket-queue.js";
import { formatAge } from "./task-repo.js";

/**
 * How the queue commands (`list`, `status`, `submit`, `cancel`, `retry`) show tickets: one table
 * and one JSON shape for all of them (snake_case, the record's own fields), so they agree.
 */
export function entryJson(entry: QueueEntry): Record<string, unknown> {
  return { id: entry.id, state: entry.state, record: entry.record, lease: entry.lease };
}

export function recordLine(record: TicketRecord): string {
  const where = record.state === "inbox" ? "inbox/" : `${record.state}/`;
  const repo = record.repo_key ? `, repo ${record.repo_key}` : "";
  const when = record.not_before ? `, not before ${record.not_before}` : "";
  return `${record.id}: ${record.status} in ${where} (${record.kind ?? "unparsed"}, priority ${record.priority}${repo}${when})`;
}

export function entryTable(entries: readonly QueueEntry[], now: number): string {
  const rows = entries.map((e) => [
    e.id,
    e.state,
    e.record?.status ?? "(no record)",
    e.record?.priority ?? "",
    e.record ? formatAge(now - Date.parse(e.record.submitted_at)) : "?",
    e.record?.repo_key ?? "",
    e.record?.reason ?? "",
  ]);
  const header = ["ticket", "state", "status", "priority", "age", "repo", "reason"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}
