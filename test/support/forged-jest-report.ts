import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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

/**
 * A new test file (jest's CommonJS or vitest's ESM) that starts `source` as a detached process, waits
 * for its first line and fails unless it is "attacked" (so a case cannot pass without its attack),
 * then waits `thenMs` (for the attacker to act on the runner while the test still runs).
 */
export const detachedAttackerTest = (source: string, runner: "jest" | "vitest", thenMs = 0) => `${
  runner === "jest"
    ? 'const { spawn } = require("node:child_process");'
    : 'import { spawn } from "node:child_process";\nimport { expect, test } from "vitest";'
}
test("environment is ready", async () => {
  const child = spawn(process.execPath, ["-e", ${JSON.stringify(source)}], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  const said = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d).trim())));
  child.stdout.destroy();
  child.unref();
  expect(said).toBe("attacked");${thenMs > 0 ? `\n  await new Promise((resolve) => setTimeout(resolve, ${thenMs}));` : ""}
});
`;

/**
 * The forged report of the attack tests: the runner's own JSON report of the repo as it is (a
 * passing `test/zz-env.test.js` written first), made outside it. Every test passes unless the
 * caller's tree breaks one; callers check that.
 */
export function runnersOwnReport(dir: string, outside: string, runner: "jest" | "vitest"): string {
  const plain = 'test("environment is ready", () => {});\n';
  writeFileSync(
    join(dir, "test/zz-env.test.js"),
    runner === "jest" ? plain : `import { test } from "vitest";\n${plain}`,
  );
  const out = join(outside, "forged.json");
  const args =
    runner === "jest" ? ["--json", `--outputFile=${out}`] : ["run", "--reporter=json", `--outputFile=${out}`];
  execFileSync(join(dir, `node_modules/.bin/${runner}`), args, {
    cwd: dir,
    stdio: "ignore",
    env: { ...process.env, CI: "1", VITEST: "", VITEST_WORKER_ID: "", VITEST_POOL_ID: "" },
  });
  return readFileSync(out, "utf8");
}
