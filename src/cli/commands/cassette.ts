import type { Command } from "commander";
import { isDevflowError } from "../../errors/index.js";
import { CASSETTE_CHECK_HELP } from "../command-help.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";

/**
 * `devflow cassette check <file>`: the file's structure, then every entry against what its role's
 * agent accepts (src/agents/check-cassette.ts). Exit 0 when a replay could use every entry, 1 with
 * one line per problem naming the entry (role, call #n), the field and why.
 */
export function registerCassette(program: Command, io: CliIO): void {
  const cassette = program
    .command("cassette")
    .description("work with cassettes (recorded model answers for --replay); see docs/cassettes.md");
  cassette
    .command("check")
    .description("validate one cassette: its structure and every entry against its role's answer shape")
    .argument("<file>", "the cassette (JSON)")
    .addHelpText("after", CASSETTE_CHECK_HELP)
    .action(async (file: string) => {
      const { loadCassette } = await import("../../models/cassette.js");
      const { checkCassette } = await import("../../agents/check-cassette.js");
      let loaded: ReturnType<typeof loadCassette>;
      try {
        loaded = loadCassette(file);
      } catch (error) {
        if (!isDevflowError(error, "CASSETTE_INVALID")) throw error;
        io.err(`devflow: ${error.message}\n`);
        io.setExitCode(EXIT.failure);
        return;
      }
      const check = checkCassette(loaded);
      for (const w of check.warnings) io.err(`warning: cassette ${file}: ${w}\n`);
      for (const p of check.problems) io.err(`devflow: cassette ${file}: ${p}\n`);
      const counts = Object.entries(check.counts).map(([role, n]) => `${role} ${n}`);
      if (check.problems.length === 0) {
        io.out(`cassette ${file}: ok (${counts.join(", ") || "no entries"})\n`);
        io.setExitCode(EXIT.completed);
      } else {
        io.err(`${check.problems.length} problem(s); every role's shape is in docs/cassettes.md\n`);
        io.setExitCode(EXIT.failure);
      }
    });
}
