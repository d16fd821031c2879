import type { Command } from "commander";
import { STATUS_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";

interface StatusFlags {
  json?: boolean;
}

/**
 * `devflow status [id]`: the queue at a glance (tickets per folder, claims and their leases) or one
 * ticket's record and lease (ADR 0051). Read-only.
 */
export function registerStatus(program: Command, io: CliIO): void {
  program
    .command("status")
    .description("the daemon's queue at a glance, or one ticket's record and lease")
    .argument("[id]", "a ticket id (devflow list shows them)")
    .addHelpText("after", STATUS_HELP)
    .option("--json", "one JSON object on stdout")
    .action(async (id: string | undefined, flags: StatusFlags) => {
      const { openQueue } = await import("../../daemon/index.js");
      const { entryJson, recordLine } = await import("../ticket-view.js");
      const queue = await openQueue();
      if (id !== undefined) {
        const entry = await queue.get(id);
        if (!entry) {
          const { DevflowError } = await import("../../errors/index.js");
          throw new DevflowError(
            "TICKET_NOT_FOUND",
            `no ticket ${id} in ${queue.root} (devflow list shows the tickets)`,
          );
        }
        if (flags.json) {
          io.out(`${JSON.stringify(entryJson(entry))}\n`);
          return;
        }
        const lines = [
          entry.record ? recordLine(entry.record) : `${entry.id}: in ${entry.state}/ without a record`,
        ];
        if (entry.record?.reason) lines.push(`  reason: ${entry.record.reason}`);
        for (const finding of entry.record?.lint ?? [])
          lines.push(`  lint ${finding.rule}: ${finding.message}`);
        if (entry.lease)
          lines.push(
            `  lease: pid ${entry.lease.owner_pid} on ${entry.lease.host} since ${entry.lease.started_at}, heartbeat ${entry.lease.heartbeat_at}`,
          );
        if (entry.record) lines.push(`  submitted ${entry.record.submitted_at} from ${entry.record.source}`);
        io.out(`${lines.join("\n")}\n`);
        return;
      }
      const entries = await queue.list();
      const counts = { inbox: 0, processing: 0, done: 0, failed: 0 };
      for (const entry of entries) counts[entry.state] += 1;
      const claims = entries
        .filter((e) => e.state === "processing")
        .map((e) => ({ id: e.id, lease: e.lease }));
      if (flags.json) {
        io.out(`${JSON.stringify({ data_root: queue.root, counts, claims })}\n`);
        return;
      }
      const lines = [
        `data root ${queue.root}`,
        `inbox ${counts.inbox}, processing ${counts.processing}, done ${counts.done}, failed ${counts.failed}`,
        ...claims.map(
          (c) =>
            `  ${c.id}: ${c.lease ? `pid ${c.lease.owner_pid} on ${c.lease.host}, heartbeat ${c.lease.heartbeat_at}` : "no lease"}`,
        ),
      ];
      io.out(`${lines.join("\n")}\n`);
    });
}
