// devflow's testResultsProcessor for jest: the run's results, in the shape of jest's `--json`
// report, sent to devflow's report channel (ADR 0089) instead of a file. jest's `--outputFile` lands
// in a directory the run may write, where a process a test started rewrote it after jest wrote it
// (attack 54e); devflow accepts exactly one connection per run, so a process of the run that sends
// results of its own makes two, and the run fails. Only code inside jest's own process could stop
// this processor's connection. jest awaits a processor since 28 and calls it synchronously before:
// the sync delivery (one small node process) works for both. Loaded by jest from devflow's install.
"use strict";
const { execFileSync } = require("node:child_process");
const { join } = require("node:path");

module.exports = function devflowResultsProcessor(results) {
  try {
    execFileSync(process.execPath, [join(__dirname, "report-channel-send.cjs")], {
      input: JSON.stringify(jsonReport(results)),
      stdio: ["pipe", "ignore", "pipe"],
      maxBuffer: 1024 * 1024,
    });
  } catch (error) {
    const said = String(error.stderr ?? "").trim() || error.message;
    // jest fails the run on a processor's throw; the exit code says it for a version that would not.
    process.exitCode = 1;
    throw new Error(`devflow's report channel: ${said}`);
  }
  return results;
};

/** The fields of jest's `--json` report (`formatTestResults`) devflow reads. */
function jsonReport(results) {
  return {
    numTotalTests: results.numTotalTests,
    numPassedTests: results.numPassedTests,
    numFailedTests: results.numFailedTests,
    numPendingTests: results.numPendingTests,
    numTodoTests: results.numTodoTests,
    testResults: results.testResults.map((file) => ({
      name: file.testFilePath,
      status: file.testExecError || file.failureMessage ? "failed" : "passed",
      message: file.failureMessage ?? file.testExecError?.message ?? "",
      assertionResults: file.testResults.map((test) => ({
        ancestorTitles: test.ancestorTitles,
        title: test.title,
        fullName: test.fullName,
        status: test.status,
        failureMessages: test.failureMessages,
      })),
    })),
  };
}
