import { open } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { DevflowError } from "../../errors/index.js";
import { SUBMIT_HELP } from "../command-help.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";

interface SubmitFlags {
  json?: boolean;
}

/** `devflow submit <ticket.md>`: lint a ticket and put it in the daemon's queue (ADR 0051). */
export function registerSubmit(program: Command, io: CliIO): void {
  program
    .command("submit")
    .description(
      "put a Markdown ticket in the daemon's queue (plan-lint first; a failing ticket goes to failed/)",
    )
    .argument("<ticket>", "the ticket file (Markdown with YAML frontmatter; devflow schema prints its keys)")
    .addHelpText("after", SUBMIT_HELP)
    .option("--json", "one JSON object on stdout")
    .action(async (ticket: string, flags: SubmitFlags) => {
      const { openQueue } = await import("../../daemon/index.js");
      const { recordLine } = await import("../ticket-view.js");
      const queue = await openQueue();
      const bytes = await readBounded(resolve(ticket), queue.config.max_ticket_bytes);
      const result = await queue.submit(resolve(ticket), bytes);
      const failed = result.findings.length > 0;
      if (flags.json)
        io.out(`${JSON.stringify({ id: result.id, record: result.record, findings: result.findings })}\n`);
      else io.out(`${recordLine(result.record)}\n`);
      if (failed) {
        io.err(
          `ticket ${result.id} failed plan-lint and is in failed/:\n${result.findings.map((f) => `  ${f.rule}: ${f.message}`).join("\n")}\nhint: fix the ticket and submit it again, or fix the setup and run devflow retry ${result.id}\n`,
        );
        io.setExitCode(EXIT.usage);
      }
    });
}

/**
 * Reads at most `cap + 1` bytes: an oversized ticket is refused by plan-lint for its size without
 * devflow reading a file of any size into memory (failed/ then keeps those first cap + 1 bytes).
 */
async function readBounded(path: string, cap: number): Promise<Uint8Array> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new DevflowError(
      "TICKET_NOT_FOUND",
      `cannot read the ticket file ${path}: ${(error as Error).message}`,
    );
  }
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new DevflowError("TICKET_NOT_FOUND", `${path} is not a file (pass the ticket's .md file)`);
    const { readFirstBytes } = await import("../../daemon/read-first-bytes.js");
    return await readFirstBytes(handle, cap + 1);
  } finally {
    await handle.close();
  }
}
