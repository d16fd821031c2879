import type { Command } from "commander";
import { CANCEL_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";

interface CancelFlags {
  json?: boolean;
}

/**
 * `devflow cancel <id>`: a waiting ticket goes to failed/ with status cancelled (ADR 0051); a running
 * one gets a cancel request its daemon notices at the next heartbeat (ADR 0056).
 */
export function registerCancel(program: Command, io: CliIO): void {
  program
    .command("cancel")
    .description("cancel a waiting or running ticket (it goes to failed/, status cancelled)")
    .argument("<id>", "a ticket id (devflow list shows them)")
    .addHelpText("after", CANCEL_HELP)
    .option("--json", "one JSON object on stdout")
    .action(async (id: string, flags: CancelFlags) => {
      const { openQueue } = await import("../../daemon/index.js");
      const { recordLine } = await import("../ticket-view.js");
      const record = await (await openQueue()).cancel(id);
      // Still processing: the request waits for the daemon holding the ticket (its next heartbeat).
      const requested = record.state === "processing";
      const line = requested
        ? `cancel requested for ${id}: the daemon running it stops it at its next heartbeat and moves it to failed/ (status cancelled); devflow status ${id} shows when`
        : recordLine(record);
      io.out(flags.json ? `${JSON.stringify({ id, requested, record })}\n` : `${line}\n`);
    });
}
