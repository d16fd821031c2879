import { parseJestFormat } from "./jest-format.js";
import type { PackageTestSetup, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { binaryPattern, insertAfter, optionWithValue, shellQuote, withoutOwn } from "./script-rewrite.js";

const JEST = binaryPattern("jest");
/**
 * The script's own `--outputFile` (`jest --json --outputFile=results.json` for a CI upload): after
 * devflow's, it won, devflow's report was never written, and every attempt was rejected (stop 46).
 */
const OWN_OUTPUT_FILE = optionWithValue("--outputFile");

/** jest: `--json --outputFile=<file>`; per-test `assertionResults` with `ancestorTitles`. */
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
      withoutOwn(baseCommand, JEST, OWN_OUTPUT_FILE, "jest"),
      JEST,
      `--json --outputFile=${shellQuote(reportPath)}`,
      "jest",
    );
    return inserted.ok
      ? { kind: "report_file", runner: "jest", command: inserted.command, reportPath }
      : { kind: "unsupported", runner: "jest", reason: inserted.reason };
  },
  parse: (text, options) => parseJestFormat("jest", text, options),
};
