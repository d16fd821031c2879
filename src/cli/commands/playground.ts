import { type Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_CODER } from "../../coders/default-coder.js";
import { DevflowError } from "../../errors/index.js";
import { PLAYGROUND_HELP } from "../command-help.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { StopSignals } from "../signals.js";
import { loadPlaygroundCommand, type PlaygroundFlags, type PlaygroundMode } from "./playground-entry.js";

const positiveInt = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1`);
  return n;
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `devflow playground`: runs the scenario suite (scenarios/) through the real graph, grades every
 * run with its evaluator, prints a table and writes report.json + report.md. Exit 1 when any
 * scenario fails, 2 for bad flags or configuration. The suite itself is playground/command.ts,
 * loaded at run time (src/ never imports playground/).
 */
export function registerPlayground(program: Command, io: CliIO): void {
  program
    .command("playground")
    .description("run the scenario suite through the real graph and grade it (replayed cassettes by default)")
    .addHelpText("after", PLAYGROUND_HELP)
    .option("--scenario-name <name>", "run only this scenario (repeatable)", collect)
    .addOption(new Option("--live", "call the configured model endpoint and coder").conflicts("record"))
    .option(
      "--record [dir]",
      "call the live model and save each scenario's cassette as <dir>/<name>.json (default dir: scenarios/cassettes)",
    )
    .option("--json", "print the report as JSON on stdout")
    .option("--report <dir>", "where report.json and report.md are written", ".devflow/playground")
    .option("--concurrency <N>", "scenarios run at the same time", positiveInt("--concurrency"), 2)
    .option("-m, --model <name>", "model for --live and --record", "gpt-4.1-mini")
    .option("--coder <name>", `coder backend (default: the scripted coders; --live: ${DEFAULT_CODER})`)
    .option("--keep", "keep every run's fixture repo (failed runs are always kept)")
    .option("--list", "list the scenarios and exit")
    .action(async (flags: PlaygroundFlags) => {
      const run = await loadPlaygroundCommand();
      // The suite does not take an AbortSignal: a stop signal ends every group it started and exits
      // at once with 130/143 (ADR 0043).
      const stop = new StopSignals(io, { abortable: false });
      const outcome = await run(flags, { io, assertReady }).finally(() => stop.dispose());
      switch (outcome.kind) {
        case "unknown_scenario":
          throw new DevflowError("BAD_OPTION", outcome.message);
        case "listed":
          io.setExitCode(EXIT.completed);
          return;
        case "graded":
          io.setExitCode(outcome.failed > 0 ? EXIT.failure : EXIT.completed);
          return;
      }
    });
}

/** Live and record runs need an endpoint and an installed coder: say so before running anything. */
async function assertReady(mode: PlaygroundMode, model: string, coder: string | null): Promise<void> {
  // The gateway and the backends load here, not at start-up (ADR 0042).
  if (mode !== "replay") {
    const { createModelGateway } = await import("../../models/create-gateway.js");
    createModelGateway({ mode: "live", model });
  }
  if (coder) {
    const { resolveCoder } = await import("../../coders/index.js");
    const { coderUnavailableError } = await import("../../coders/contract.js");
    const backend = resolveCoder(coder);
    const probe = await backend.probe();
    if (!probe.installed)
      throw coderUnavailableError(
        "CODER_NOT_INSTALLED",
        `coder "${backend.name}" is not installed`,
        probe.hint,
      );
  }
}
