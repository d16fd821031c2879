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

/**
 * JavaScript source (for a detached attack process; `fs` must be in scope): `cmdline(pid)`, and
 * `killable(pid)`, the pid to `kill()` a process of the attacker's own PID namespace by (0 for any
 * other). A confined run is PID 1.. of its own namespace but may see the host's /proc: a process
 * there is the run's when its pid namespace is the attacker's, and its pid there is NSpid's last field.
 */
export const RUN_PROCESSES = String.raw`
const cmdline = (pid) => { try { return fs.readFileSync("/proc/" + pid + "/cmdline", "utf8"); } catch { return ""; } };
const nsOf = (pid) => { try { return fs.readlinkSync("/proc/" + pid + "/ns/pid"); } catch { return ""; } };
const ownNs = nsOf("self");
const killable = (pid) => {
  if (nsOf(pid) !== ownNs) return 0;
  try { return Number(/^NSpid:\s*(.*)$/m.exec(fs.readFileSync("/proc/" + pid + "/status", "utf8"))[1].trim().split(/\s+/).pop()); } catch { return 0; }
};
`;
