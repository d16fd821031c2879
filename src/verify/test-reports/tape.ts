import type { PackageTestSetup, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { binaryPattern, countInvocations, shellQuote } from "./script-rewrite.js";
import { parseTapComments } from "./tap-tests.js";

const TAPE = binaryPattern("tape");
/** A single `|` (not `||`): the TAP would go to another program (tap-spec, faucet) instead of devflow. */
const PIPE = /(?<!\|)\|(?!\|)/;

/**
 * tape has no reporter option: its TAP goes to stdout. devflow sends the whole script's stdout
 * to the report file (stderr stays in the log); a script that pipes the TAP elsewhere is unsupported.
 */
export const tapeAdapter: RunnerAdapter = {
  runner: "tape",
  invocation: TAPE,
  detect: (setup: PackageTestSetup) => setup.script !== null && countInvocations(setup.script, TAPE) > 0,
  command(baseCommand: string, reportPath: string): ReportRequest {
    const count = countInvocations(baseCommand, TAPE);
    if (count !== 1)
      return {
        kind: "unsupported",
        runner: "tape",
        reason:
          count === 0
            ? "the test script does not invoke tape"
            : `the test script invokes tape ${count} times`,
      };
    if (PIPE.test(baseCommand))
      return {
        kind: "unsupported",
        runner: "tape",
        reason: "the test script pipes tape's TAP into another program",
      };
    return {
      kind: "report_file",
      runner: "tape",
      command: `{ ${baseCommand}\n} > ${shellQuote(reportPath)}`,
      reportPath,
    };
  },
  parse: (text, options) => parseTapComments("tape", text, options),
};
