/**
 * Attack 57 (review 57 of the stop-50 change, ADR 0089 amendment): FALSE PASS of regression and
 * FALSE COMPLETION of the seam under tape, by a process outside tape's own process.
 *
 * Cause: tape has no reporter; its TAP is the script's stdout, and every process the run starts
 * with default stdio shares it. Code tape loads (a new test file's top level; src/slug.js, the
 * module the seam's test loads) starts a detached process that inherits that stdout and blocks.
 * The process writes TAP of its own (every test "ok"; for the seam, the canary "not ok" with its
 * nonce, read from the canary file) and SIGKILLs tape before tape prints anything. devflow's
 * wrapper (tape-channel-sender.cjs) held the channel's only connection and sent what came down the
 * pipe: regression read "pass ... all 5 test(s) green on base are still green" with clamp broken
 * (regression ignores the exit code on a red base), the seam "pass" with slugify unfixed (137 is
 * the non-zero exit the canary asks for). The same held before the channel (the detached process
 * inherited the redirected report file).
 *
 * Fix: a script ended by a signal (the shell's 128 + n, or the shell itself killed) gives a TAP
 * bail-out instead of its output, which devflow's parser refuses: such a run has no evidence.
 * Mutation: the wrapper sending what came whatever the exit: both cases read `pass` again.
 * Left (ADR 0089 amendment): the stdout stays shared while tape runs; taking tape's TAP off it
 * (a devflow preload calling tape's createStream() before any test file loads) is the next step.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";
import { TAPE_READY, tapesOwnReport } from "../../support/report-channel-attacks.js";
import { unfixedSeamWith } from "../../support/unfixed-seam.js";

const forgerTest = (forged: string) => {
  const forger = `
const fs = require("node:fs");
fs.writeSync(1, ${JSON.stringify(forged)});
process.kill(process.ppid, "SIGKILL");
process.exit(0);
`;
  return `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(forger)}], { detached: true, stdio: ["ignore", "inherit", "ignore"] }).unref();
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
${TAPE_READY}`;
};

describe("attack 57: a process holding tape's stdout forges the TAP and kills tape", () => {
  it("regression: a broken clamp does not pass", async ({ onTestFinished }) => {
    const repo = await fixtureProject("tape", {}, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    await fixSlug(repo);
    const forged = tapesOwnReport(repo);
    await breakClamp(repo);
    writeFileSync(join(repo.dir, "test/zz-env.test.js"), forgerTest(forged));
    const envelope = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", [
      "src/slug.js",
      "src/math.js",
      "test/zz-env.test.js",
    ]);
    console.log("attack57 (regression):", envelope.overall_result, envelope.summary);
    expect(envelope.overall_result, envelope.summary).not.toBe("pass");
    expect(envelope.summary).toContain("the tape script was ended by a signal");
  }, 240_000);
});

const FORGER = String.raw`
const fs = require("node:fs");
const { join } = require("node:path");
const root = process.cwd();
let tap = "TAP version 13\n# slug\n# works\nok 1 should be strictly equal\n# collapses repeated spaces\nok 2 should be strictly equal\n# SKIP keeps unicode letters\n# math\n# works\nok 3 should be strictly equal\n";
let n = 3;
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]);
for (const f of walk(join(root, "test")).filter((f) => f.includes("devflow-canary"))) {
  const text = fs.readFileSync(f, "utf8");
  const title = JSON.parse(/__devflowTape\(("[^"]*"), \(t\)/.exec(text)[1]);
  const message = JSON.parse(/const message = ("[^"]*");/.exec(text)[1]);
  n += 1;
  tap += "# " + title + "\nnot ok " + n + " " + message + "\n  ---\n    operator: equal\n  ...\n";
}
tap += "\n1.." + n + "\n";
fs.writeSync(1, tap);
process.kill(process.ppid, "SIGKILL");
process.exit(0);
`;

const SIDE_EFFECT = `if (!globalThis.__forged) {
  globalThis.__forged = true;
  require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(FORGER)}], { detached: true, stdio: ["ignore", "inherit", "ignore"] }).unref();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
}
`;

describe("attack 57 against the seam: TAP forged through tape's stdout, tape killed", () => {
  const seamWith = (sideEffect: string | null, onTestFinished: (fn: () => Promise<void>) => void) =>
    unfixedSeamWith("tape", sideEffect, onTestFinished);

  it("an unfixed slugify does not pass the seam", async ({ onTestFinished }) => {
    const { seam } = await seamWith(SIDE_EFFECT, onTestFinished);
    if (seam === null) throw new Error("precondition: base is not red");
    console.log(
      "attack57 (seam):",
      seam.overall_result,
      seam.summary,
      JSON.stringify(seam.native_payload.canary),
    );
    expect(seam.overall_result, seam.summary).not.toBe("pass");
    expect(seam.summary).toContain("the tape script was ended by a signal");
  }, 240_000);

  it("(control) the unfixed slugify without the side effect fails the seam", async ({ onTestFinished }) => {
    const { base, seam } = await seamWith(null, onTestFinished);
    expect(base.red).toBe(true);
    console.log("attack57 (seam control):", seam?.overall_result, seam?.summary);
    expect(seam?.overall_result).toBe("fail");
  }, 240_000);
});
