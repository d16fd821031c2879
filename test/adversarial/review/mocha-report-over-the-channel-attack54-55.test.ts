/**
 * Attacks 54e and 55 against mocha (stop 50; the jest and vitest cases are in
 * test-code-rewrites-jest-report-attack54.test.ts and *attack55.test.ts): FALSE COMPLETION.
 *
 * Cause: ADR 0089 moved jest's and vitest's reports onto devflow's report channel, but mocha still
 * wrote its `json` report (`--reporter-option output=<file>`) into `<log>.out/`, the directory the
 * run may write. The attempt fixes slugify, breaks clamp, and adds a test file that starts a
 * detached watcher rewriting that file with mocha's own report of the tree without the break:
 * regression passed "by full test identity" (probe of stop 50: `pass`, "all 3 test(s) green on
 * base are still green").
 *
 * Fix: mocha's report comes over the channel too. devflow's `--require`
 * (src/verify/test-reports/mocha-channel-connect.cjs) connects before mocha loads any spec file and
 * takes the address out of the environment; devflow's reporter (mocha-channel-reporter.cjs) sends
 * the results over that connection. The cases:
 * - file route: the forged report written where the report file went is replaced by devflow's write;
 * - channel route: the watcher reads the address from mocha's /proc environ and sends the forged
 *   report; a second connection is tampering;
 * - kill route (attack 55's class): a spec file's top-level code, which runs before mocha makes its
 *   reporter, starts a process that sends the forged report and kills mocha. Connected before the
 *   spec files load, devflow's connection is the first: tampering, not a pass.
 * Mutation: mocha-channel-connect.cjs made a no-op (the reporter then connects when mocha makes
 * it, after the spec files loaded): the kill route reads `pass`.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

/**
 * JavaScript source: `ownAddress()`, devflow's report socket address as the process's first
 * environment holds it (devflow's `--require` took it out of `process.env`), read in mocha's own
 * process (a confined run's pids need not match the /proc it sees); `socketOf(address)`.
 */
const ADDRESS = String.raw`
const ownAddress = () => {
  const line = require("node:fs").readFileSync("/proc/self/environ", "utf8").split("\0")
    .find((l) => l.startsWith("DEVFLOW_REPORT_SOCKET="));
  return line ? line.slice("DEVFLOW_REPORT_SOCKET=".length) : "";
};
const socketOf = (address) => address.startsWith("@") ? "\0" + address.slice(1) : address;
`;

/** Started detached by a test with mocha's pid as its argument; says "attacked" once it acted. */
const watcher = (forged: string, root: string, route: "file" | "channel", reportDirs: string[]) => String.raw`
const fs = require("node:fs");
const net = require("node:net");
const socketOf = (address) => address.startsWith("@") ? "\0" + address.slice(1) : address;
const forged = ${JSON.stringify(forged)}.split(${JSON.stringify(root)}).join(process.cwd());
if (${JSON.stringify(route)} === "channel") {
  const address = process.argv[2];
  if (!address) { console.log("no address"); process.exit(0); }
  const socket = net.connect(socketOf(address));
  socket.on("error", (e) => { console.log(e.message); process.exit(0); });
  socket.end(forged, () => { console.log("attacked"); process.exit(0); });
} else {
  const mounted = fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n")
    .map((l) => l.split(" ")[4]).filter((p) => p && p.endsWith(".out"));
  const dirs = [...mounted, ...${JSON.stringify(reportDirs)}];
  const deadline = Date.now() + 30000;
  let told = false;
  // Rewritten as soon as anything writes there (mocha's own report, before mocha has exited), and every 5 ms.
  for (const dir of dirs) try { fs.watch(dir, () => { try { if (fs.readFileSync(dir + "/report", "utf8") !== forged) fs.writeFileSync(dir + "/report", forged); } catch {} }); } catch {}
  (function write() {
    let wrote = 0;
    for (const dir of dirs) try { fs.writeFileSync(dir + "/report", forged); wrote += 1; } catch {}
    if (!told) { told = true; console.log(wrote > 0 ? "attacked" : "no report directory"); }
    if (Date.now() < deadline) setTimeout(write, 5);
  })();
}
`;

/** A mocha test that starts `source` detached (mocha's pid and the address its arguments) and fails unless it attacked. */
const watcherTest = (source: string) => `const { spawn } = require("node:child_process");
${ADDRESS}
it("environment is ready", async () => {
  const child = spawn(process.execPath, ["-e", ${JSON.stringify(source)}, String(process.pid), ownAddress()], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  const said = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d).trim())));
  child.stdout.destroy();
  child.unref();
  if (said !== "attacked") throw new Error(said);
});
`;

/** A spec file whose top-level code (run before mocha makes its reporter) sends the forged report and has mocha killed. */
const killerSpec = (forged: string, root: string) => {
  const killer = String.raw`
const net = require("node:net");
const socketOf = (address) => address.startsWith("@") ? "\0" + address.slice(1) : address;
const mocha = Number(process.argv[1]);
const forged = ${JSON.stringify(forged)}.split(${JSON.stringify(root)}).join(process.cwd());
const address = process.argv[2];
const socket = net.connect(socketOf(address));
socket.on("error", () => process.exit(0));
socket.end(forged, () => { process.kill(mocha, "SIGKILL"); process.exit(0); });
`;
  return `${ADDRESS}
require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(killer)}, String(process.pid), ownAddress()], { detached: true, stdio: "ignore" }).unref();
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
it("environment is ready", () => {});
`;
};

const CHANGED = ["src/slug.js", "src/math.js", "test/zz-env.test.js"];

/** mocha's own `json` report of the repo with slugify fixed and a passing test/zz-env.test.js: every test passes. */
async function mochasOwnReport(repo: FixtureRepo): Promise<string> {
  writeFileSync(join(repo.dir, "test/zz-env.test.js"), 'it("environment is ready", () => {});\n');
  const out = join(repo.outside, "forged.json");
  execFileSync(
    join(repo.dir, "node_modules/.bin/mocha"),
    ["--reporter", "json", "--reporter-option", `output=${out}`, "test/**/*.test.js"],
    { cwd: repo.dir, stdio: "ignore" },
  );
  const forged = readFileSync(out, "utf8");
  expect(JSON.parse(forged).failures).toEqual([]);
  return forged;
}

type Route = "file" | "channel" | "kill";

async function attack(route: Route, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject("mocha", {}, onTestFinished);
  const base = await fixtureBaseline(repo, "npm test");
  expect(base.error, base.error ?? "").toBeNull();
  await fixSlug(repo);
  const forged = await mochasOwnReport(repo);
  await breakClamp(repo);
  writeFileSync(
    join(repo.dir, "test/zz-env.test.js"),
    route === "kill"
      ? killerSpec(forged, repo.dir)
      : watcherTest(watcher(forged, repo.dir, route, [join(repo.outside, "regression.log.out")])),
  );
  return fixtureRegression(repo, "npm test", base, "test/slug.test.js", CHANGED);
}

describe("attacks 54e and 55 against mocha's report", () => {
  it("file route: a forged report where the report file went does not count", async ({ onTestFinished }) => {
    const run = await attack("file", onTestFinished);
    console.log("mocha attack54e (file):", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("math clamp > works (fail)");
    expect(run.summary, "the watcher attacked").not.toContain("environment is ready");
  }, 240_000);

  it.for(["channel", "kill"] as const)(
    "%s route: a forged report sent over devflow's channel is tampering",
    { timeout: 240_000 },
    async (route, { onTestFinished }) => {
      const run = await attack(route, onTestFinished);
      console.log(
        `mocha attack${route === "kill" ? "55" : "54e"} (${route}):`,
        run.overall_result,
        run.summary,
      );
      expect(run.overall_result, run.summary).toBe("error");
      expect(run.summary).toContain("2 connections reached devflow's report channel");
    },
  );

  it("(control) the break without an attack fails naming clamp", async ({ onTestFinished }) => {
    const repo = await fixtureProject("mocha", {}, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    await fixSlug(repo);
    await breakClamp(repo);
    const run = await fixtureRegression(repo, "npm test", base);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("math clamp > works (fail)");
  }, 240_000);
});
