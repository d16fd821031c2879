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
import { expect } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { OWN_ADDRESS } from "../../support/report-attackers.js";
import { describeReportChannelAttacks } from "../../support/report-channel-attacks.js";

/** A mocha test that starts `source` detached (mocha's pid and the address its arguments) and fails unless it attacked. */
const watcherTest = (source: string) => `const { spawn } = require("node:child_process");
${OWN_ADDRESS}
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
  const killer = `
const net = require("node:net");
${OWN_ADDRESS}
const mocha = Number(process.argv[1]);
const forged = ${JSON.stringify(forged)}.split(${JSON.stringify(root)}).join(process.cwd());
const address = process.argv[2];
const socket = net.connect(socketOf(address));
socket.on("error", () => process.exit(0));
socket.end(forged, () => { process.kill(mocha, "SIGKILL"); process.exit(0); });
`;
  return `${OWN_ADDRESS}
require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(killer)}, String(process.pid), ownAddress()], { detached: true, stdio: "ignore" }).unref();
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
it("environment is ready", () => {});
`;
};

/** mocha's own `json` report of the repo with slugify fixed and a passing test/zz-env.test.js: every test passes. */
function mochasOwnReport(repo: FixtureRepo): string {
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

describeReportChannelAttacks({
  runner: "mocha",
  brokenClamp: "test/math.test.js > math clamp > works (fail)",
  ownReport: mochasOwnReport,
  watcherTest,
  killerTest: killerSpec,
});
