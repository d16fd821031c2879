import { fileURLToPath } from "node:url";
import type { PackageTestSetup, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { binaryPattern, countInvocations, shellQuote } from "./script-rewrite.js";
import { parseTapComments } from "./tap-tests.js";

const TAPE = binaryPattern("tape");
/** A single `|` (not `||`): the TAP would go to another program (tap-spec, faucet) instead of devflow. */
const PIPE = /(?<!\|)\|(?!\|)/;

/** devflow's wrapper that sends the script's stdout over devflow's report channel (ADR 0089). */
export const TAPE_CHANNEL_SENDER = fileURLToPath(new URL("./tape-channel-sender.cjs", import.meta.url));

/**
 * tape has no reporter option: its TAP goes to stdout. devflow runs the whole script under its
 * wrapper (by devflow's own node), which connects to devflow's report channel before the script
 * starts and sends the script's stdout over it when the script exits (ADR 0089); stderr stays in
 * the log. The stdout used to be redirected to a report file in a directory the run may write,
 * where a process a test started rewrote it after tape ended (attack 54e against tape). A script
 * that pipes the TAP elsewhere is unsupported.
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
      command: [process.execPath, TAPE_CHANNEL_SENDER, baseCommand].map(shellQuote).join(" "),
      reportPath,
      via: "channel",
    };
  },
  parse: (text, options) => parseTapComments("tape", text, options),
};
