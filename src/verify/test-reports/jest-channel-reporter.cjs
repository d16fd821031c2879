// devflow's reporter for jest: the run's results, in the shape of jest's `--json` report, sent over
// devflow's report channel (ADR 0089) instead of written to a file the run could rewrite after jest
// wrote it (attack 54e). jest makes its reporters before it runs any test file (after globalSetup),
// and the connection is opened then (report-channel-client.cjs). Loaded by jest from devflow's
// install, never from the checkout under test.
"use strict";
const { openReportConnection } = require("./report-channel-client.cjs");

class DevflowChannelReporter {
  constructor() {
    this.connection = openReportConnection();
    this.failure = undefined;
  }

  async onRunComplete(_contexts, results) {
    try {
      await this.connection.send(JSON.stringify(jsonReport(results)));
    } catch (error) {
      // jest counts getLastError against the run's success (jest >= 23); the throw fails it too.
      this.failure = error;
      throw error;
    }
  }

  getLastError() {
    return this.failure;
  }
}

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

module.exports = DevflowChannelReporter;
