/**
 * devflow's jest reporter (ADR 0089) with real jest 29: when it cannot deliver the report, jest's
 * run fails, whatever the tests did. A reporter that shrugged would leave devflow with no report
 * and a green exit code, and a run judged by exit code alone is what the report replaced.
 */
import { relative } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openReportChannel, REPORT_SOCKET_ENV } from "../../src/verify/report-channel.js";
import { JEST_CHANNEL_REPORTER, JEST_REPORTERS_END } from "../../src/verify/test-reports/jest.js";
import { type FixtureRepo, makeFixtureRepo } from "./runner-fixture.js";

let repo: FixtureRepo;
beforeAll(async () => {
  repo = await makeFixtureRepo("jest");
}, 240_000);
afterAll(() => repo?.cleanup());

/** jest on the fixture's passing file only, with devflow's reporter and `env`. */
const jest = (env: Record<string, string>) =>
  execa(
    "node_modules/.bin/jest",
    [
      "--reporters=default",
      `--reporters=${JEST_CHANNEL_REPORTER}`,
      `--testResultsProcessor=${JEST_REPORTERS_END}`,
      "test/math",
    ],
    {
      cwd: repo.dir,
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH ?? "", HOME: repo.outside, CI: "1", ...env },
    },
  );

describe("devflow's jest reporter", () => {
  // Pinned (stop 49): `--reporters=default --reporters=<devflow's>` alone lost the script's test
  // path: jest's --reporters takes every following word up to the next option as a reporter.
  it("delivers the report of the files the script names, and only theirs", async () => {
    const channel = await openReportChannel("jest");
    const run = await jest(channel.env);
    const result = await channel.close();
    expect(run.exitCode, run.stderr).toBe(0);
    if (result.kind !== "report") throw new Error(`no report: ${JSON.stringify(result)}`);
    const files = JSON.parse(result.text).testResults.map((f: { name: string }) =>
      relative(repo.dir, f.name),
    );
    expect(files).toEqual(["test/math.test.js"]);
  }, 120_000);

  it("(control) the same run without the reporter passes", async () => {
    const run = await execa("node_modules/.bin/jest", ["test/math"], {
      cwd: repo.dir,
      reject: false,
      env: { CI: "1" },
    });
    expect(run.exitCode, run.stderr).toBe(0);
  }, 120_000);

  it("fails jest's run, when it cannot deliver, without an address", async () => {
    const run = await jest({});
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("DEVFLOW_REPORT_SOCKET is not set");
  }, 120_000);

  it("fails jest's run, when it cannot deliver, when nobody listens at the address", async () => {
    const run = await jest({ [REPORT_SOCKET_ENV]: "@devflow-report-nobody-listens" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("devflow's report channel");
  }, 120_000);
});
