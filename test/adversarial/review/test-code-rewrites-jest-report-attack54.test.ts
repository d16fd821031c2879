/**
 * Attack 54e (review of af1237b; the hole is older than ADR 0088, which makes it easier):
 * FALSE COMPLETION. jest's JSON report is written by jest's parent process into a directory the
 * run may write (`<log>.out/`, exposed writable in the namespace), and devflow believes it as
 * written: there is no ledger for jest as there is for node:test (ADR 0048). Test code is the
 * attempt's to change (ADR 0019), and it can find the report: since ADR 0088 it is spelled out in
 * package.json for the whole run (`scripts.test` holds `--outputFile='<report>'`), and without
 * ADR 0088 it is in jest's command line (/proc/<pid>/cmdline).
 *
 * The attempt fixes slugify, breaks clamp, and adds a NEW test file (test/zz-env.test.js, one
 * passing test) that starts a detached watcher: it waits for jest to write the report, then marks
 * every failed test "passed" and exits, before jest, the package manager and the shell have
 * exited (so nothing is left for devflow to end).
 *
 * Observed: regression passes by full test identity through `pnpm test` (ADR 0088's run), and
 * through plain `npm test` (devflow's own pinned run, the report path read from /proc).
 * Control: the break without the watcher fails naming clamp.
 * Left open (stop 48): the watcher races the run's end, so each case tries up to three runs.
 * Should: a report a process of the run can write is not evidence by itself: e.g. jest writes it
 * into a directory the run cannot write (a custom reporter/testResultsProcessor of devflow's that
 * streams results to a pipe or fd devflow holds, or the report dir exposed read-only with jest's
 * parent writing through an inherited descriptor), or a ledger as for node:test; at the least, a
 * report whose mtime is later than the runner's exit is refused.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll } from "../../support/build-step-project.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";
import { MARK_JEST_FAILURES_PASSED } from "../../support/forged-jest-report.js";
import { pnpmFirstOnPath } from "../../support/pnpm-stub.js";

/** The watcher: the report path from package.json (ADR 0088) or any process's command line. */
const WATCHER = String.raw`
${MARK_JEST_FAILURES_PASSED}
const fs = require("node:fs");
const PATTERN = /--outputFile=(?:'([^']*)'|([^\s']+))/;
function reportPath() {
  try {
    const m = PATTERN.exec(JSON.stringify(JSON.parse(fs.readFileSync("package.json", "utf8")).scripts));
    if (m) return (m[1] ?? m[2]).replace(/\\$/, "");
  } catch {}
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const m = PATTERN.exec(fs.readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\0").join(" "));
      if (m) return m[1] ?? m[2];
    } catch {}
  }
  return null;
}
const file = reportPath();
if (file === null) process.exit(0);
const deadline = Date.now() + 60000;
(function poll() {
  if (Date.now() > deadline) process.exit(0);
  try { JSON.parse(fs.readFileSync(file, "utf8")); } catch { return setTimeout(poll, 1); }
  markJestFailuresPassed(file);
  process.exit(0);
})();
`;

const WATCHER_TEST = `const { spawn } = require("node:child_process");
test("environment is ready", () => {
  spawn(process.execPath, ["-e", ${JSON.stringify(WATCHER)}], { detached: true, stdio: "ignore" }).unref();
  expect(1).toBe(1);
});
`;

async function project(scripts: Record<string, string>, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "jest",
    {
      "package.json": JSON.stringify({
        name: "fixture-jest",
        private: true,
        scripts,
        devDependencies: { jest: "29.7.0" },
      }),
      "scripts/check.js": 'console.log("check ok");\n',
    },
    onTestFinished,
  );
  await commitAll(repo.dir, "scripts");
  return repo;
}

/**
 * The attempt's regression run, up to three times until the watcher wins its race with the run's
 * end (it lost once on a loaded machine): each verdict. The hole is shown when any run passes.
 */
async function raced(
  repo: Awaited<ReturnType<typeof project>>,
  command: string,
  base: Awaited<ReturnType<typeof fixtureBaseline>>,
) {
  const results: { overall_result: string; summary: string }[] = [];
  for (let run = 0; run < 3; run += 1) {
    const envelope = await fixtureRegression(repo, command, base, "test/slug.test.js", [
      "src/slug.js",
      "src/math.js",
      "test/zz-env.test.js",
    ]);
    results.push({ overall_result: envelope.overall_result, summary: envelope.summary });
    if (envelope.overall_result === "pass") break;
  }
  return results;
}

describe("attack 54e: test code rewrites the jest report after jest wrote it", () => {
  it.fails("through `pnpm test` (ADR 0088's run): a watcher started by a new test must not let a broken clamp pass", async ({
    onTestFinished,
  }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project({ pretest: "node scripts/check.js", test: "jest" }, onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("pnpm test");
    await fixSlug(repo);
    await breakClamp(repo);
    writeFileSync(join(repo.dir, "test/zz-env.test.js"), WATCHER_TEST);
    const results = await raced(repo, "pnpm test", base);
    console.log("attack54e (pnpm):", results);
    expect(results.map((r) => r.overall_result)).not.toContain("pass");
  }, 240_000);

  it.fails("(older than ADR 0088) through devflow's own pinned `npm test` run, the path read from /proc", async ({
    onTestFinished,
  }) => {
    const repo = await project({ test: "jest" }, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager).toBeUndefined();
    await fixSlug(repo);
    await breakClamp(repo);
    writeFileSync(join(repo.dir, "test/zz-env.test.js"), WATCHER_TEST);
    const results = await raced(repo, "npm test", base);
    console.log("attack54e (npm):", results);
    expect(results.map((r) => r.overall_result)).not.toContain("pass");
  }, 240_000);

  it("(control) the break without the watcher fails naming clamp", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project({ pretest: "node scripts/check.js", test: "jest" }, onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    await fixSlug(repo);
    await breakClamp(repo);
    const run = await fixtureRegression(repo, "pnpm test", base);
    expect(run.overall_result).toBe("fail");
    expect(run.summary).toContain("clamp");
  }, 240_000);
});
