import { fileURLToPath } from "node:url";
import { parseJestFormat } from "./jest-format.js";
import type { PackageTestSetup, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { binaryPattern, insertAfter, optionWithValue, shellQuote, withoutOwn } from "./script-rewrite.js";

const JEST = binaryPattern("jest");
/**
 * The script's own `--outputFile` (`jest --json --outputFile=results.json` for a CI upload): after
 * devflow's, it won, devflow's report was never written, and every attempt was rejected (stop 46).
 * devflow's report no longer uses it (ADR 0089); it still goes, or jest would write into the checkout.
 */
const OWN_OUTPUT_FILE = optionWithValue("--outputFile|--output-file");

/** devflow's jest reporter: the report over devflow's report channel (ADR 0089). */
export const JEST_CHANNEL_REPORTER = fileURLToPath(new URL("./jest-channel-reporter.cjs", import.meta.url));
/** Ends the `--reporters` list (an array option) so the script's own words stay its own. */
export const JEST_REPORTERS_END = fileURLToPath(new URL("./jest-reporters-end.cjs", import.meta.url));

/** The script's own results processor: a later one would replace devflow's (CLI options win over config). */
const OWN_RESULTS_PROCESSOR = optionWithValue("--testResultsProcessor|--test-results-processor");

/**
 * jest: `--reporters=default --reporters=<devflow's> --testResultsProcessor=<devflow's no-op>`:
 * jest's default reporter for the log, and devflow's, which connects to devflow's report channel
 * when jest makes it (before any test file runs) and sends the results in `--json`'s shape over that
 * connection (ADR 0089). jest's `--outputFile` lands in a directory the run may write, where a
 * process the tests started rewrote it after jest wrote it (attack 54e). The processor only ends
 * the `--reporters` list: it takes every following word up to the next option, so `jest test/unit`
 * lost its path. Per-test `assertionResults` with `ancestorTitles`.
 */
export const jestAdapter: RunnerAdapter = {
  runner: "jest",
  invocation: JEST,
  nameFilter: /(?:^|\s)(?:-t|--testNamePattern|--test-name-pattern)(?=[=\s]|$)/,
  configNameFilter: /\btestNamePattern\b["']?\s*[:=]/,
  // A number since jest 24 (before, `--bail` was a boolean). The command's own `--bail[=N]` / `-b`
  // goes, so none follows (the last one wins). `--bail N` with a space is left: jest reads the N as
  // a test path pattern.
  runEveryTest: {
    args: ["--bail=0"],
    placement: "after_invocation",
    replaces: /\s(?:--bail(?:=[^\s"';&|)]*)?|-b|"--bail(?:=[^"]*)?"|'--bail(?:=[^']*)?')(?=[\s"';&|)]|$)/,
    since: { package: "jest", version: "24.0.0" },
  },
  detect: (setup: PackageTestSetup) => setup.script !== null && new RegExp(JEST.source).test(setup.script),
  command(baseCommand: string, reportPath: string): ReportRequest {
    const inserted = insertAfter(
      withoutOwn(withoutOwn(baseCommand, JEST, OWN_OUTPUT_FILE, "jest"), JEST, OWN_RESULTS_PROCESSOR, "jest"),
      JEST,
      `--reporters=default --reporters=${shellQuote(JEST_CHANNEL_REPORTER)} --testResultsProcessor=${shellQuote(JEST_REPORTERS_END)}`,
      "jest",
    );
    return inserted.ok
      ? { kind: "report_file", runner: "jest", command: inserted.command, reportPath, via: "channel" }
      : { kind: "unsupported", runner: "jest", reason: inserted.reason };
  },
  parse: (text, options) => parseJestFormat("jest", text, options),
};
