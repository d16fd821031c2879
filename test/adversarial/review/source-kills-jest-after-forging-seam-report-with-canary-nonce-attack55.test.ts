/**
 * Attack 55b (review of de7c17d, ADR 0089): FALSE COMPLETION of the SEAM, with the bug NOT fixed.
 * The seam canary (ADR 0028) is meant to show that what reports the seam's run is jest, not the
 * attempt: the canary test must be reported failing with this run's nonce in its message, and
 * jest's exit must not be 0. Both are forgeable by a process of the run through ADR 0089's channel,
 * which accepts its one connection from anybody:
 *  - the canary file sits in the checkout during the run, its title and nonce in plain text;
 *  - the report channel's address is in every process's environment;
 *  - killing jest's main process before its results processor runs leaves the forged connection
 *    the only one, and the exit status 137 (not 0), which is what the canary asks of it.
 * src/slug.js (the attempt's, bug left in) starts a detached process when the seam loads it and
 * then waits (so jest cannot reach its processor first). The detached process reads the canary
 * file(s), sends a report with every seam test passing and the canary failing with its nonce, and
 * SIGKILLs jest's main process. No assertion library is touched and no result in jest is changed.
 *
 * Observed: seam `pass` (canary "failed_as_required") with slugify still broken.
 * Should: fail/error: a report whose hook never delivered is not the runner's (and a killed
 * runner is no evidence).
 * Control: the same unfixed slug without the side effect fails the seam.
 *
 * Fixed (stop 49), was `it.fails`: devflow's jest hook is a reporter whose connection opens when
 * jest makes it, before any test file (and so src/slug.js) loads; the forger's connection is a
 * second one, and the seam's run fails as tampering. Killing jest leaves the reporter's connection
 * without a report.
 */
import { describe, expect, it } from "vitest";
import { RUN_PROCESSES } from "../../support/forged-jest-report.js";
import { unfixedSeamWith } from "../../support/unfixed-seam.js";

/** The detached process: forges jest's report from the canary files, sends it, kills jest. */
const SILENCER = String.raw`
const fs = require("node:fs");
const net = require("node:net");
const { join } = require("node:path");
const root = process.cwd();
${RUN_PROCESSES}
let jest = 0;
for (const pid of fs.readdirSync("/proc")) {
  if (!/^\d+$/.test(pid)) continue;
  const w = cmdline(pid).split("\0");
  if (/(^|\/)node$/.test(w[0]) && w[1] !== "-e" && w.some((x) => x.includes("testResultsProcessor"))) jest = killable(pid) || jest;
}
const seamTests = (status) => [
  { ancestorTitles: ["slug"], title: "works", status: "passed", failureMessages: [] },
  { ancestorTitles: ["slug"], title: "collapses repeated spaces", status: "passed", failureMessages: [] },
  { ancestorTitles: ["slug"], title: "keeps unicode letters", status: "pending", failureMessages: [] },
  { ancestorTitles: ["slug"], title: "transliterates", status: "todo", failureMessages: [] },
  { ancestorTitles: ["math"], title: "works", status: "passed", failureMessages: [] },
];
const testResults = [{ name: join(root, "test/slug.test.js"), status: "passed", message: "", assertionResults: seamTests() }];
for (const f of fs.readdirSync(join(root, "test")).filter((f) => f.includes("devflow-canary"))) {
  const text = fs.readFileSync(join(root, "test", f), "utf8");
  const title = JSON.parse(/(?:it|test)\(("[^"]*"), \(\) => \{/.exec(text)[1]);
  const message = JSON.parse(/\.toBe\(("devflow seam canary [^"]*")\)/.exec(text)[1]);
  testResults.push({
    name: join(root, "test", f), status: "failed", message,
    assertionResults: [...seamTests(), { ancestorTitles: [], title, status: "failed", failureMessages: [message] }],
  });
}
const total = testResults.reduce((n, t) => n + t.assertionResults.length, 0);
const forged = JSON.stringify({ numTotalTests: total, numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults });
const address = process.env.DEVFLOW_REPORT_SOCKET;
const socket = net.connect(address.startsWith("@") ? "\0" + address.slice(1) : address);
socket.on("error", () => process.exit(0));
socket.end(forged, () => { if (jest) process.kill(jest, "SIGKILL"); process.exit(0); });
`;

/** The attempt's module side effect: once per run, start the silencer, then wait to be killed. */
const SIDE_EFFECT = `if (process.env.DEVFLOW_REPORT_SOCKET) {
  require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(SILENCER)}], { detached: true, stdio: "ignore" }).unref();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
}
`;

describe("attack 55b: the seam's jest report forged over the channel, jest killed before its hook", () => {
  const seamWith = (sideEffect: string | null, onTestFinished: (fn: () => Promise<void>) => void) =>
    unfixedSeamWith("jest", sideEffect, onTestFinished);

  it("an unfixed slugify must not pass the seam", async ({ onTestFinished }) => {
    const { seam } = await seamWith(SIDE_EFFECT, onTestFinished);
    if (seam === null) throw new Error("precondition: base is not red");
    console.log("attack55b:", seam.overall_result, seam.summary, JSON.stringify(seam.native_payload.canary));
    expect(seam.overall_result, seam.summary).not.toBe("pass");
    expect(seam.summary).toContain("2 connections reached devflow's report channel");
  }, 240_000);

  it("(control) the unfixed slugify without the side effect fails the seam", async ({ onTestFinished }) => {
    const { base, seam } = await seamWith(null, onTestFinished);
    expect(base.red).toBe(true);
    console.log("attack55b (control):", seam?.overall_result, seam?.summary);
    expect(seam?.overall_result).toBe("fail");
  }, 240_000);
});
