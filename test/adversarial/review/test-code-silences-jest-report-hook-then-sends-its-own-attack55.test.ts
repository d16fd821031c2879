/**
 * Attack 55 (review of de7c17d, ADR 0089): FALSE COMPLETION. devflow accepts the report channel's
 * ONE connection as jest's report, whoever made it. ADR 0089 says "a process of the run that knows
 * the address can only add a connection" and "preventing the processor's own connection would need
 * code inside jest's process". Not so: any process of the run may end another. A detached process
 * started by a new test file (so NOT code in jest's process once started) sends a forged report
 * over the channel (the address is in its inherited environment), then stops devflow's hook from
 * connecting, so its connection is the only one:
 *  (a) it polls /proc for devflow's sender (`report-channel-send.cjs`, started by the processor
 *      when jest ends) and SIGKILLs it before it connects: the processor throws, jest exits 1;
 *  (b) it SIGKILLs jest's main process (an ancestor whose command line carries
 *      `--testResultsProcessor`) right after sending: the processor never runs, no race at all.
 * The processor's throw / the killed runner only make the exit code non-zero, and regression
 * ignores the exit code when base was red (it always is: the seam's test fails on base), so the
 * forged report (every test passing, from a real jest run of the tree without the break) is judged
 * per test and a broken `clamp` passes "by full test identity".
 *
 * The run is in its own PID namespace but sees the host's /proc: the silencer finds its targets
 * there by command line, keeps those in its own pid namespace (/proc/<pid>/ns/pid) and kills them
 * by NSpid's last field. On this 2-core machine jest runs the files in band; the silencing is done
 * by the detached process all the same (no code in jest's process touches a result).
 *
 * Observed (both): regression `pass`, "no regressions: all N test(s) green on base are still
 * green; newly passing: ...".
 * Should: a report whose hook did not deliver (the hook's own connection missing, the runner killed)
 * is not evidence: regression must not pass (error/fail), whatever base's exit code was.
 * Control: the same break with the new test file doing nothing fails naming clamp.
 *
 * Fixed (stop 49), was `it.fails`: devflow's hook is a jest reporter that connects when jest makes
 * it, before any test file runs, and sends the report over that connection when the run completes
 * (report-channel-client.cjs); there is no sender process. The forger's connection is always a
 * second one ("tamper: 2 connections reached devflow's report channel"), and a killed jest leaves
 * the reporter's connection without a report. (a)'s target no longer exists; the case stays as the
 * plain "send, then wait" variant.
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
import { detachedAttackerTest, RUN_PROCESSES, runnersOwnReport } from "../../support/forged-jest-report.js";

type Route = "kill-sender" | "kill-jest";

/** The detached process: sends the forged report over devflow's channel, then silences the hook. */
const silencer = (forged: string, root: string, route: Route) => String.raw`
const fs = require("node:fs");
const net = require("node:net");
const forged = ${JSON.stringify(forged)}.split(${JSON.stringify(root)}).join(process.cwd());
const route = ${JSON.stringify(route)};
const address = process.env.DEVFLOW_REPORT_SOCKET;
if (!address) { console.log("no address"); process.exit(0); }
${RUN_PROCESSES}
const find = (test) => {
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const words = cmdline(pid).split("\0");
    if (test(words)) { const own = killable(pid); if (own > 0 && own !== process.pid) return own; }
  }
  return 0;
};
const socket = net.connect(address.startsWith("@") ? "\0" + address.slice(1) : address);
socket.on("error", (e) => { console.log(e.message); process.exit(0); });
socket.end(forged, () => {
  if (route === "kill-jest") {
    // jest's main process: the node process that was given devflow's processor.
    const jest = find((w) => /(^|\/)node$/.test(w[0]) && w.some((x) => x.includes("testResultsProcessor")));
    if (!jest) { console.log("no jest"); process.exit(0); }
    console.log("attacked");
    setTimeout(() => { process.kill(jest, "SIGKILL"); process.exit(0); }, 200);
    return;
  }
  console.log("attacked");
  const deadline = Date.now() + 60000;
  (function look() {
    const sender = find((w) => w.some((x) => x.endsWith("report-channel-send.cjs")));
    if (sender) { try { process.kill(sender, "SIGKILL"); } catch {} process.exit(0); }
    if (Date.now() < deadline) setTimeout(look, 1); else process.exit(0);
  })();
});
`;

const CHANGED = ["src/slug.js", "src/math.js", "test/zz-env.test.js"];

async function project(onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "jest",
    {
      "package.json": JSON.stringify({
        name: "fixture-jest",
        private: true,
        scripts: { test: "jest" },
        devDependencies: { jest: "29.7.0" },
      }),
    },
    onTestFinished,
  );
  await commitAll(repo.dir, "scripts");
  return repo;
}

async function hostileAttempt(repo: Awaited<ReturnType<typeof project>>, route: Route | "none") {
  await fixSlug(repo);
  const forged = runnersOwnReport(repo.dir, repo.outside, "jest");
  expect(JSON.parse(forged).numFailedTests).toBe(0);
  await breakClamp(repo);
  if (route !== "none")
    writeFileSync(
      join(repo.dir, "test/zz-env.test.js"),
      detachedAttackerTest(silencer(forged, repo.dir, route), "jest", 1000),
    );
}

describe("attack 55: a process of the run silences devflow's jest hook and sends the only report", () => {
  for (const route of ["kill-sender", "kill-jest"] as const) {
    it(`${route}: a broken clamp must not pass regression`, async ({ onTestFinished }) => {
      const repo = await project(onTestFinished);
      const base = await fixtureBaseline(repo, "npm test");
      expect(base.error, base.error ?? "").toBeNull();
      expect(base.exitCode).not.toBe(0);
      await hostileAttempt(repo, route);
      const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", CHANGED);
      console.log(
        `attack55 (${route}):`,
        run.overall_result,
        run.summary,
        "exit",
        (run.native_payload as { exit_code?: number | null }).exit_code,
      );
      expect(run.overall_result, run.summary).toBe("error");
      expect(run.summary).toContain("2 connections reached devflow's report channel");
    }, 240_000);
  }

  it("(control) the same break with a harmless new test fails naming clamp", async ({ onTestFinished }) => {
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    await hostileAttempt(repo, "none");
    const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", CHANGED);
    console.log("attack55 (control):", run.overall_result, run.summary);
    expect(run.overall_result).toBe("fail");
    expect(run.summary).toContain("clamp");
  }, 240_000);
});
