import { fileURLToPath } from "node:url";
import { parseJestFormat } from "./jest-format.js";
import type { PackageTestSetup, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { binaryPattern, insertAfter, optionWithValue, shellQuote, withoutOwn } from "./script-rewrite.js";

/** `vitest`, `vitest run`: the flags go after `run` when it is there. */
const VITEST = binaryPattern(String.raw`vitest(?:\s+run)?`);
/**
 * The script's own output file for every reporter or for `json` (`--outputFile=results.json`): it
 * took the JSON report away from devflow's file, and every attempt was rejected (stop 46). One for
 * another reporter (`--outputFile.junit=…`) stays.
 */
const OWN_OUTPUT_FILE = optionWithValue(String.raw`--outputFile(?:\.json)?`);

/** devflow's vitest reporter: vitest's JSON report over devflow's report channel (ADR 0089). */
export const VITEST_CHANNEL_REPORTER = fileURLToPath(
  new URL("./vitest-channel-reporter.mjs", import.meta.url),
);

/**
 * vitest: the `default` reporter stays on for the log (naming any reporter replaces it), devflow's
 * (vitest's JSON reporter, its report sent over devflow's report channel, ADR 0089) gives the
 * report, and `--run` rules out watch mode whatever the script says.
 */
export const vitestAdapter: RunnerAdapter = {
  runner: "vitest",
  invocation: VITEST,
  nameFilter: /(?:^|\s)(?:-t|--testNamePattern|--test-name-pattern)(?=[=\s]|$)/,
  configNameFilter: /\btestNamePattern\b["']?\s*[:=]/,
  runEveryTest: {
    args: ["--bail=0"],
    placement: "after_invocation",
    // vitest refuses `--bail` twice ("Expected a single value"), so the command's own is taken out:
    // kept, a failure base already has before the tests it stops at hid them on both sides (review,
    // stop 44). `--bail=1`, `--bail 1`, a bare `--bail`, quoted or not, up to a closing quote
    // of a `sh -c '…'` it sits in.
    replaces: /\s(?:--bail(?:=[^\s"';&|)]*|\s+\d+)?|"--bail(?:=[^"]*)?"|'--bail(?:=[^']*)?')(?=[\s"';&|)]|$)/,
    // vitest 0.28 answers `--bail` with "Unknown option" and runs nothing; 0.31 added it.
    since: { package: "vitest", version: "0.31.0" },
  },
  detect: (setup: PackageTestSetup) => setup.script !== null && new RegExp(VITEST.source).test(setup.script),
  command(baseCommand: string, reportPath: string): ReportRequest {
    const flags = `--run --reporter=default --reporter=${shellQuote(VITEST_CHANNEL_REPORTER)}`;
    const inserted = insertAfter(
      withoutOwn(baseCommand, VITEST, OWN_OUTPUT_FILE, "vitest"),
      VITEST,
      flags,
      "vitest",
    );
    return inserted.ok
      ? { kind: "report_file", runner: "vitest", command: inserted.command, reportPath, via: "channel" }
      : { kind: "unsupported", runner: "vitest", reason: inserted.reason };
  },
  parse: (text, options) => parseJestFormat("vitest", text, options),
};
