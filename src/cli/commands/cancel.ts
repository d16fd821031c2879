import type { Command } from "commander";
import { CANCEL_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";

interface CancelFlags {
  json?: boolean;
}

/** `devflow cancel <id>`: a waiting ticket goes to failed/ with status cancelled (ADR 0051). */
export function registerCancel(program: Command, io: CliIO): void {
  program
    .command("cancel")
    .description("cancel a ticket waiting in the inbox (it goes to failed/, status cancelled)")
    .argument("<id>", "a ticket id (devflow list shows them)")
    .addHelpText("after", CANCEL_HELP)
    .option("--json", "one JSON object on stdout")
    .action(async (id: string, flags: CancelFlags) => {
      const { openQueue } = await import("../../daemon/index.js");
      const { recordLine } = await import("../ticket-view.js");
      const record = await (await openQueue()).cancel(id);
      io.out(flags.json ? `${JSON.stringify({ id, record })}\n` : `${recordLine(record)}\n`);
    });
}
