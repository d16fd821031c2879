/**
 * JavaScript source (for the attack scripts tests write: a shell, a package manager release, a
 * watcher) of `markJestFailuresPassed(file)`: rewrites a jest `--json` report so every failed test
 * and suite reads "passed", as a hostile attempt would forge it.
 */
export const MARK_JEST_FAILURES_PASSED = String.raw`
function markJestFailuresPassed(file) {
  const fs = require("node:fs");
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const t of report.testResults) {
    for (const a of t.assertionResults) if (a.status === "failed") { a.status = "passed"; a.failureMessages = []; }
    t.status = "passed";
    t.message = "";
  }
  report.numPassedTests += report.numFailedTests;
  report.numFailedTests = 0;
  report.numFailedTestSuites = 0;
  report.success = true;
  fs.writeFileSync(file, JSON.stringify(report));
}
`;
