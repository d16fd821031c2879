import { Command, CommanderError } from "commander";
import { registerPlayground } from "../src/cli/commands/playground.js";
import { EXIT } from "../src/cli/exit-codes.js";
import { processIO } from "../src/cli/io.js";
import { reportError } from "../src/cli/report-error.js";

/**
 * `npm run eval`: the scenario suite, exactly `devflow playground` with the flags given after `--`
 * (cassettes by default). A program of its own, so CI's eval step depends on nothing but this
 * command; its last stdout line is `N passed, N failed`.
 */
const io = processIO();
const program = new Command()
  .name("devflow")
  .exitOverride()
  .configureOutput({ writeOut: io.out, writeErr: io.err });
registerPlayground(program, io);
try {
  await program.parseAsync(["playground", ...process.argv.slice(2)], { from: "user" });
} catch (error) {
  process.exitCode =
    error instanceof CommanderError
      ? error.exitCode === 0
        ? EXIT.completed
        : EXIT.usage
      : reportError(error, (line) => io.err(`${line}\n`));
}
