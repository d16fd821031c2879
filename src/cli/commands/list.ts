import type { Command } from "commander";
import { LIST_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";

interface ListFlags {
  state?: string;
  json?: boolean;
}

const STATES = ["inbox", "processing", "done", "failed"];

/** `devflow list`: every ticket of the daemon's queue, by folder (ADR 0051). Read-only. */
export function registerList(program: Command, io: CliIO): void {
  program
    .command("list")
    .description("list the tickets of the daemon's queue: state, status, priority, age, repository")
    .addHelpText("after", LIST_HELP)
    .option("--state <state>", `only one folder: ${STATES.join(", ")}`)
    .option("--json", "one JSON object on stdout")
    .action(async (flags: ListFlags) => {
      if (flags.state !== undefined && !STATES.includes(flags.state)) {
        const { DevflowError } = await import("../../errors/index.js");
        throw new DevflowError("BAD_OPTION", `--state ${flags.state}: use one of ${STATES.join(", ")}`);
      }
      const { openQueue } = await import("../../daemon/index.js");
      const { entryJson, entryTable } = await import("../ticket-view.js");
      const queue = await openQueue();
      const entries = (await queue.list()).filter(
        (e) => flags.state === undefined || e.state === flags.state,
      );
      if (flags.json) {
        io.out(`${JSON.stringify({ data_root: queue.root, tickets: entries.map(entryJson) })}\n`);
        return;
      }
      if (entries.length === 0) {
        io.out(`No tickets${flags.state ? ` in ${flags.state}/` : ""} in ${queue.root}.\n`);
        return;
      }
      io.out(entryTable(entries, Date.now()));
    });
}
