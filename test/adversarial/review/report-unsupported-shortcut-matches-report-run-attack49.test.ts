/**
 * Attack 49e (review of ADR 0085), NO HOLE: does the baseline's new shortcut (straight to the
 * console run when `reportUnsupported(invocation)` names a reason) send any script to the console
 * that used to get a usable report?
 *
 * Looked at: `reportUnsupported` calls the same `adapter.command(script, path)` that
 * `runWithReport` uses to decide between a report run and a plain one, with a placeholder path;
 * no adapter's decision depends on the path (mocha's, pytest's and node:test's conflict patterns
 * and tape's pipe test read the script only; jest and vitest refuse only a script that does not
 * invoke them exactly once). Before 3b5514c an unsupported script ran without report flags,
 * `report` was null, and the baseline fell through to the console run: the same end, one whole run
 * later. So every script below is judged as before: those that can give a report still get one
 * (`--reporter-option`, vitest's own `--reporter=verbose`, jest's `--json` without a file, pytest's
 * `--junit-prefix`), those that cannot (mocha `-R`/`--reporter`, pytest `--junitxml`/`--junit-xml`,
 * node `--test-reporter` before `--test`, a piped tape, a runner invoked twice) go to the console as
 * they did (node:test's own reporter after `--test` is taken out since stop 51, attack 58c, and a
 * node:test script that still gets no report gets no verdict rather than a console one).
 */
import { describe, expect, it } from "vitest";
import { type RunnerInvocation, reportUnsupported } from "../../../src/verify/report-run.js";
import { RUNNER_ADAPTERS } from "../../../src/verify/test-reports/index.js";

const inv = (runner: RunnerInvocation["runner"], script: string): RunnerInvocation => ({ runner, script });

/** What `runWithReport` decides for the same script with a real report path (a space and a quote in it). */
const reportRunAsks = (i: RunnerInvocation) =>
  RUNNER_ADAPTERS.find((a) => a.runner === i.runner)?.command(i.script, "/tmp/dev flow's/x.log.out/report")
    .kind === "report_file";

describe("reportUnsupported agrees with the report run's own decision", () => {
  const keepsReport: RunnerInvocation[] = [
    inv("mocha", "mocha --reporter-option maxDiffSize=0 'test/**/*.test.js'"),
    inv("mocha", "mocha --bail test"),
    inv("vitest", "vitest run --reporter=verbose"),
    inv("vitest", "vitest --reporter verbose --reporter junit"),
    inv("jest", "jest --json"),
    inv("jest", "jest --reporters=default"),
    inv("pytest", "pytest --junit-prefix=x -q"),
    inv("node-test", "node --test test/"),
    // Its own reporter is taken out, devflow's added (stop 51, attack 58c).
    inv("node-test", "node --test --test-reporter=tap test/"),
    inv("tape", "tape test/*.js"),
  ];
  const console: RunnerInvocation[] = [
    inv("mocha", "mocha -R tap test"),
    inv("mocha", "mocha --reporter=dot test"),
    inv("mocha", "mocha test/unit && mocha test/int"),
    inv("pytest", "pytest --junitxml=out.xml"),
    inv("pytest", "pytest --junit-xml out.xml"),
    inv("node-test", "node --test-reporter=tap --test test/"),
    inv("tape", "tape test/*.js | tap-spec"),
  ];

  it("scripts that can give a report are not sent to the console", () => {
    for (const i of keepsReport) {
      expect(reportUnsupported(i), i.script).toBeNull();
      expect(reportRunAsks(i), i.script).toBe(true);
    }
  });

  it("scripts sent to the console are exactly those whose report run asked for no report", () => {
    for (const i of console) {
      expect(reportUnsupported(i), i.script).not.toBeNull();
      expect(reportRunAsks(i), i.script).toBe(false);
    }
  });
});
