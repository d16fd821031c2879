import type { Command } from "commander";
import { RETRY_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";

interface RetryFlags {
  json?: boolean;
}

/** `devflow retry <id>`: a failed ticket goes back to the inbox once it passes plan-lint again (ADR 0051). */
export function registerRetry(program: Command, io: CliIO): void {
  program
    .command("retry")
    .description("put a failed or cancelled ticket back in the inbox (plan-lint runs again first)")
    .argument("<id>", "a ticket id (devflow list --state failed shows them)")
    .addHelpText("after", RETRY_HELP)
    .option("--json", "one JSON object on stdout")
    .action(async (id: string, flags: RetryFlags) => {
      const { openQueue } = await import("../../daemon/index.js");
      const { recordLine } = await import("../ticket-view.js");
      const record = await (await openQueue()).retry(id);
      io.out(flags.json ? `${JSON.stringify({ id, record })}\n` : `${recordLine(record)}\n`);
    });
}
