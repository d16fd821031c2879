import { resolve } from "node:path";
import { allScenarios, findScenario, type ScenarioModule } from "../scenarios/index.js";
import { DEFAULT_CODER, type PlaygroundCommand, type PlaygroundMode } from "../src/index.js";
import { closingLine, progressLine, provenanceLine, renderTable, writeReports } from "./report.js";
import { runPlayground } from "./run-playground.js";
import { CASSETTES_DIR } from "./run-scenario.js";
import { messageOf } from "./runners/routing.js";

/**
 * `devflow playground` (the CLI loads this file at run time; src/ never imports playground/):
 * lists the scenarios, or runs the selected ones, prints the table and writes the reports.
 */
export const runPlaygroundCommand: PlaygroundCommand = async (flags, { io, assertReady }) => {
  if (flags.list) {
    const all = await allScenarios();
    io.out(all.map(({ scenario: s }) => `${s.name.padEnd(42)} ${s.kind.padEnd(8)} ${s.group}\n`).join(""));
    return { kind: "listed" };
  }
  const selected = await selectScenarios(flags.scenarioName ?? []);
  if (selected.kind === "unknown_scenario") return selected;
  const mode: PlaygroundMode = flags.live ? "live" : flags.record ? "record" : "replay";
  const coder = flags.coder ?? (mode === "live" ? DEFAULT_CODER : null);
  await assertReady(mode, flags.model, coder);

  const report = await runPlayground({
    scenarios: selected.scenarios,
    mode,
    model: flags.model,
    coder,
    // --record <dir> writes the recorded cassettes there; replay and live read scenarios/cassettes.
    cassetteDir: typeof flags.record === "string" ? resolve(flags.record) : CASSETTES_DIR,
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
      `\n${renderTable(report)}\n${provenanceLine(report)}\nreports: ${paths.json}, ${paths.markdown}\n${timing}\n${closingLine(report)}\n`,
    );
  }
  return { kind: "graded", passed: report.passed, failed: report.failed };
};

type Selection =
  | { kind: "selected"; scenarios: readonly ScenarioModule[] }
  | { kind: "unknown_scenario"; message: string };

async function selectScenarios(names: string[]): Promise<Selection> {
  try {
    const scenarios = names.length === 0 ? await allScenarios() : await Promise.all(names.map(findScenario));
    return { kind: "selected", scenarios };
  } catch (error) {
    return { kind: "unknown_scenario", message: messageOf(error) };
  }
}
