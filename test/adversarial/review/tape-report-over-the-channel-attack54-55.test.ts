/**
 * Attacks 54e and 55 against tape (stop 50; jest, vitest and mocha in their own files): FALSE
 * COMPLETION, by the watcher's race.
 *
 * Cause: tape has no reporter; devflow redirected the whole script's stdout (`{ script } > file`)
 * into `<log>.out/report`, in the directory the run may write. A process a test started could
 * rewrite the TAP there after tape ended and before devflow read it.
 *
 * Fix: devflow runs the script under its wrapper (src/verify/test-reports/tape-channel-sender.cjs,
 * by devflow's node), which connects to devflow's report channel before the script starts, keeps
 * the address from the script's environment, and sends the script's stdout over its connection
 * when the script exits. The cases (the attempt fixes slugify, breaks clamp, adds a test file):
 * - file route: a watcher writes tape's own TAP of the tree without the break where the report
 *   file went, as soon as anything writes there: devflow's write replaces it;
 * - channel route: the watcher finds the address in the wrapper's /proc environ and sends the
 *   forged TAP: a second connection is tampering;
 * - kill route (attack 55's class): the test file's top-level code starts a process that sends the
 *   forged TAP and kills the wrapper: the wrapper connected first, so tampering, not a pass.
 * Mutation: the wrapper connects only when the script has exited: the kill route reads `pass`.
 */
import { RUN_PROCESSES } from "../../support/forged-jest-report.js";
import { OWN_ADDRESS } from "../../support/report-attackers.js";
import {
  describeReportChannelAttacks,
  TAPE_READY,
  tapesOwnReport,
} from "../../support/report-channel-attacks.js";

/** A tape test that starts `source` detached and fails unless it attacked. */
const watcherTest = (source: string) => `const { spawn } = require("node:child_process");
const test = require("tape");
test("environment is ready", (t) => {
  const child = spawn(process.execPath, ["-e", ${JSON.stringify(source)}], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  child.stdout.once("data", (d) => {
    child.stdout.destroy();
    child.unref();
    t.equal(String(d).trim(), "attacked");
    t.end();
  });
});
`;

/** A test file whose top-level code has the forged TAP sent and devflow's wrapper killed, then waits. */
const killerTest = (forged: string) => {
  const killer = String.raw`
const fs = require("node:fs");
const net = require("node:net");
${OWN_ADDRESS}
${RUN_PROCESSES}
const address = ancestorAddress();
if (!address) process.exit(0);
const socket = net.connect(socketOf(address));
socket.on("error", () => process.exit(0));
socket.end(${JSON.stringify(forged)}, () => setTimeout(() => {
  // devflow's wrapper only (its script's argument names the file too), and this run's: another
  // test's tape may run beside it.
  for (const pid of ancestors())
    if ((cmdline(pid).split("\0")[1] ?? "").endsWith("tape-channel-sender.cjs")) { const own = killable(pid); if (own) process.kill(own, "SIGKILL"); }
  process.exit(0);
}, 300));
`;
  return `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(killer)}], { detached: true, stdio: "ignore" }).unref();
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
${TAPE_READY}`;
};

describeReportChannelAttacks({
  runner: "tape",
  brokenClamp: "works (fail)",
  ownReport: tapesOwnReport,
  watcherTest,
  killerTest: (forged) => killerTest(forged),
});
