import { parseJunitXml } from "./junit.js";
import type { PackageTestSetup, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { insertAfter, shellQuote } from "./script-rewrite.js";

/**
 * pytest's invocation: `pytest`, `py.test`, `python -m pytest`, `python3 -m pytest` (a path to a
 * python binary too), so its arguments follow.
 */
const PYTEST =
  /(?:^|(?<=[\s;&|(]))(?:(?:\S*\/)?python[\d.]*\s+-m\s+pytest|(?:\S*\/)?py\.?test)(?=\s|$|[;&|)])/g;

/**
 * pytest: `--junitxml=<file> -o junit_family=xunit1`. The xunit1 family is asked for because it
 * names each test's `file`, so a test's identity is file + class path + function (with its
 * parameters), the same in every checkout. A module pytest could not import is reported as a
 * testcase named after the module with the error "collection failure": that is a run error, not
 * a test (the run had no verdict for the module's tests).
 */
export const pytestAdapter: RunnerAdapter = {
  runner: "pytest",
  invocation: PYTEST,
  // Short flags combine (`-qk spaces`): those before `k`/`m` take no value (review, stop 31).
  nameFilter: /(?:^|\s)-[qvsxl]*[km](?=[=\s\w"'])|(?:^|\s)--keyword(?=[=\s])/,
  // Undoes `-x`/`--maxfail` where devflow's plugin (which undoes them from anywhere, `--sw` too)
  // cannot load; after the suite's own arguments, as the last one wins.
  runEveryTest: { args: ["--maxfail=0"], placement: "after_arguments" },
  detect: (setup: PackageTestSetup) => setup.script !== null && new RegExp(PYTEST.source).test(setup.script),
  command(baseCommand: string, reportPath: string): ReportRequest {
    const inserted = insertAfter(
      baseCommand,
      PYTEST,
      `--junitxml=${shellQuote(reportPath)} -o junit_family=xunit1`,
      "pytest",
      /(?:^|\s)--junit-?xml\b\S*/,
    );
    return inserted.ok
      ? { kind: "report_file", runner: "pytest", command: inserted.command, reportPath }
      : { kind: "unsupported", runner: "pytest", reason: inserted.reason };
  },
  parse(text, options) {
    const report = parseJunitXml("pytest", text, options);
    const uncollected = new Set(
      [
        ...text.matchAll(
          /<testcase classname="" name="([^"]*)"[^>]*>\s*<error message="collection failure"/g,
        ),
      ].map((m) => m[1] ?? ""),
    );
    if (uncollected.size === 0) return report;
    return {
      ...report,
      tests: report.tests.filter((t) => !(uncollected.has(t.id.title) && t.id.suites.length <= 1)),
      run_errors: [...report.run_errors, ...[...uncollected].map((m) => `pytest could not collect ${m}`)],
    };
  },
};
