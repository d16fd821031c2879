import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { closingLine, progressLine, renderTable, writeReports } from "../../../playground/report.js";
import { runPlayground } from "../../../playground/run-playground.js";
import { CASSETTES_DIR, type PlaygroundMode } from "../../../playground/run-scenario.js";
import { findScenario, SCENARIOS } from "../../../scenarios/index.js";
import type { Scenario } from "../../../scenarios/scenario.js";
import { coderUnavailableError } from "../../coders/contract.js";
import { DEFAULT_CODER, resolveCoder } from "../../coders/index.js";
import { DevflowError } from "../../errors/index.js";
import { createModelGateway } from "../../models/create-gateway.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";

interface PlaygroundFlags {
  scenarioName?: string[];
  live?: boolean;
  record?: boolean;
  json?: boolean;
  report: string;
  concurrency: number;
  model: string;
  coder?: string;
  keep?: boolean;
  list?: boolean;
}

const positiveInt = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1`);
  return n;
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `devflow playground`: runs the scenario suite (scenarios/) through the real graph, grades every
 * run with its evaluator (evals/), prints a table and writes report.json + report.md. Exit 1 when
 * any scenario fails, 2 for bad flags or configuration.
 */
export function registerPlayground(program: Command, io: CliIO): void {
  program
    .command("playground")
    .description("run the scenario suite through the real graph and grade it (replayed cassettes by default)")
    .option("--scenario-name <name>", "run only this scenario (repeatable)", collect)
    .addOption(new Option("--live", "call the configured model endpoint and coder").conflicts("record"))
    .option("--record", "call the live model and save scenarios/cassettes/<name>.json for each scenario")
    .option("--json", "print the report as JSON on stdout")
    .option("--report <dir>", "where report.json and report.md are written", ".devflow/playground")
    .option("--concurrency <N>", "scenarios run at the same time", positiveInt("--concurrency"), 2)
    .option("-m, --model <name>", "model for --live and --record", "gpt-4.1-mini")
    .option("--coder <name>", `coder backend (default: the scripted coders; --live: ${DEFAULT_CODER})`)
    .option("--keep", "keep every run's fixture repo (failed runs are always kept)")
    .option("--list", "list the scenarios and exit")
    .action(async (flags: PlaygroundFlags) => {
      io.setExitCode(await playgroundAction(flags, io));
    });
}

async function playgroundAction(flags: PlaygroundFlags, io: CliIO): Promise<number> {
  if (flags.list) {
    io.out(SCENARIOS.map((s) => `${s.name.padEnd(42)} ${s.kind.padEnd(8)} ${s.group}\n`).join(""));
    return EXIT.completed;
  }
  const scenarios = selectScenarios(flags.scenarioName ?? []);
  const mode: PlaygroundMode = flags.live ? "live" : flags.record ? "record" : "replay";
  const coder = flags.coder ?? (mode === "live" ? DEFAULT_CODER : null);
  await assertReady(mode, flags.model, coder);

  const report = await runPlayground({
    scenarios,
    mode,
    model: flags.model,
    coder,
    cassetteDir: CASSETTES_DIR,
    concurrency: flags.concurrency,
    keep: Boolean(flags.keep),
    ...(flags.json ? {} : { onResult: (r) => io.err(progressLine(r)) }),
  });
  const paths = writeReports(report, resolve(flags.report));
  const timing = `${report.results.length} scenario(s) in ${(report.durationMs / 1000).toFixed(1)}s (${mode}, concurrency ${report.concurrency})`;
  if (flags.json) {
    io.out(`${JSON.stringify(report)}\n`);
    io.err(`${timing}\n${closingLine(report)}\n`);
  } else {
    io.out(
      `\n${renderTable(report)}\nreports: ${paths.json}, ${paths.markdown}\n${timing}\n${closingLine(report)}\n`,
    );
  }
  return report.failed > 0 ? EXIT.failure : EXIT.completed;
}

function selectScenarios(names: string[]): readonly Scenario[] {
  if (names.length === 0) return SCENARIOS;
  try {
    return names.map(findScenario);
  } catch (error) {
    throw new DevflowError("BAD_OPTION", error instanceof Error ? error.message : String(error));
  }
}

/** Live and record runs need an endpoint and an installed coder: say so before running anything. */
async function assertReady(mode: PlaygroundMode, model: string, coder: string | null): Promise<void> {
  if (mode !== "replay") createModelGateway({ mode: "live", model });
  if (coder) {
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
