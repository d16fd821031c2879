// devflow's reporter for mocha: the run's results in the shape of mocha's `json` reporter, sent over
// devflow's report channel (ADR 0089) instead of written to a file a process of the run could
// rewrite after mocha wrote it (attack 54e against mocha). The connection was opened by
// mocha-channel-connect.cjs before the spec files loaded. It listens to the runner's events by name
// (the same since mocha 1), so it needs nothing of the running mocha's own modules.
// Loaded by mocha from devflow's install, never from the checkout under test.
"use strict";
const { earlyReportConnection } = require("./report-channel-client.cjs");

class DevflowMochaChannelReporter {
  constructor(runner) {
    this.connection = earlyReportConnection();
    this.runner = runner;
    this.tests = [];
    this.pending = [];
    this.failures = [];
    this.errors = new Map();
    runner.on("test end", (test) => this.tests.push(test));
    runner.on("pending", (test) => this.pending.push(test));
    // A failing hook comes here too, with no "test end" of its own: a run error for devflow.
    runner.on("fail", (test, error) => {
      this.failures.push(test);
      this.errors.set(test, error);
    });
  }

  // mocha waits for this before it exits (Mocha#run calls `reporter.done` when the reporter has one).
  done(failures, exit) {
    const stats = this.runner.stats;
    const report = {
      stats: { tests: stats && typeof stats.tests === "number" ? stats.tests : this.tests.length },
      tests: this.tests.map((test) => this.clean(test)),
      pending: this.pending.map((test) => this.clean(test)),
      failures: this.failures.map((test) => this.clean(test)),
    };
    this.connection.send(JSON.stringify(report)).then(
      () => exit(failures),
      (error) => {
        process.stderr.write(`${error.message}\n`);
        exit(Math.max(failures, 1));
      },
    );
  }

  /** mocha's `json` reporter's fields devflow reads; a failed test always carries a non-empty `err`. */
  clean(test) {
    const failed = this.errors.has(test) || test.state === "failed";
    return {
      title: String(test.title),
      fullTitle: String(typeof test.fullTitle === "function" ? test.fullTitle() : test.title),
      ...(typeof test.file === "string" ? { file: test.file } : {}),
      err: failed ? errorFields(this.errors.get(test) ?? test.err) : {},
    };
  }
}

function errorFields(error) {
  const message = error && typeof error.message === "string" ? error.message : String(error);
  return { message: message.slice(0, 2000) || "failed" };
}

module.exports = DevflowMochaChannelReporter;
