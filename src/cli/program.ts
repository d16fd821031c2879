import { Command, CommanderError } from "commander";
import { redact } from "../util/redact.js";
import { devflowVersion } from "../util/version.js";
import { registerCassette } from "./commands/cassette.js";
import { registerChat } from "./commands/chat.js";
import { registerClean } from "./commands/clean.js";
import { registerDemo } from "./commands/demo.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerIterate } from "./commands/iterate.js";
import { registerPlan } from "./commands/plan.js";
import { registerPlayground } from "./commands/playground.js";
import { registerQueueCommands } from "./commands/queue-commands.js";
import { registerRoute } from "./commands/route.js";
import { registerRuns } from "./commands/runs.js";
import { registerShow } from "./commands/show.js";
import { EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import { errorResultLine, resultLineCommandIn, usageResultLine, writeLine } from "./json-output.js";
import { reportError } from "./report-error.js";

export function buildProgram(io: CliIO): Command {
  const program = new Command()
    .name("devflow")
    .description("Turn a coding request plus a git repository into a verified change.")
    .version(devflowVersion())
    .showHelpAfterError("(run devflow --help or devflow <command> --help for usage)")
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride();
  registerIterate(program, io);
  registerPlan(program, io);
  registerDemo(program, io);
  registerDoctor(program, io);
  registerChat(program, io);
  registerRoute(program, io);
  registerPlayground(program, io);
  registerRuns(program, io);
  registerShow(program, io);
  registerClean(program, io);
  registerCassette(program, io);
  registerQueueCommands(program, io);
  return program;
}

/** Runs the CLI and returns the exit code: usage errors (unknown flags too) are 2, as documented. */
export async function runCli(argv: string[], cliIO: CliIO): Promise<number> {
  // The last boundary before the terminal: whatever a command prints (progress, summaries, --json
  // lines, errors) goes out with known secrets redacted (ADR 0030).
  const io: CliIO = { ...cliIO, out: (t) => cliIO.out(redact(t)), err: (t) => cliIO.err(redact(t)) };
  let code = 0;
  const program = buildProgram({ ...io, setExitCode: (c) => (code = c) });
  // Error hints suggest --resume only for a command that has it.
  let resumable = false;
  program.hook("preAction", (_program, action) => {
    resumable = action.options.some((option) => option.long === "--resume");
  });
  // --json owes its caller exactly one result line, also when the run fails (ADR 0046).
  const jsonCommand = resultLineCommandIn(argv);
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version")
        return EXIT.completed;
      if (error.code === "commander.help") return EXIT.completed;
      if (jsonCommand)
        writeLine(io.out, usageResultLine(jsonCommand, error.message.replace(/^error: /, ""), EXIT.usage));
      return EXIT.usage;
    }
    const exit = reportError(error, (l) => io.err(`${l}\n`), { resumable });
    if (jsonCommand) writeLine(io.out, errorResultLine(jsonCommand, error, exit));
    return exit;
  }
}
