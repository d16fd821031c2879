import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FixtureRepo, FixtureRunner } from "../reports/runner-fixture.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "./fixture-regression.js";
import { reportWatcher } from "./report-attackers.js";

/** How a forger reaches devflow's report (ADR 0089): the file the report used to be, the channel, or the channel with the runner killed. */
export type ReportRoute = "file" | "channel" | "kill";

/** One runner's part of the attacks: the rest is the same for every runner (`describeReportChannelAttacks`). */
export interface ReportChannelAttack {
  runner: FixtureRunner;
  /** How regression names the broken clamp test in this runner's report, `… (fail)` included. */
  brokenClamp: string;
  /** The runner's own report of `repo` with slugify fixed and a passing test/zz-env.test.js: every test passes. */
  ownReport(repo: FixtureRepo): Promise<string> | string;
  /** test/zz-env.test.js: for "file"/"channel", a test that starts `watcher` detached and fails unless it says "attacked". */
  watcherTest(watcher: string): string;
  /** test/zz-env.test.js for "kill": its top-level code has `forged` sent over the channel and the runner (or devflow's hook) killed. */
  killerTest(forged: string, root: string): string;
}

const CHANGED = ["src/slug.js", "src/math.js", "test/zz-env.test.js"];

/** test/zz-env.test.js for tape: one passing test. */
export const TAPE_READY =
  'const test = require("tape");\ntest("environment is ready", (t) => { t.pass("ready"); t.end(); });\n';

/** tape's own TAP of `repo` with a passing test/zz-env.test.js written first (`TAPE_READY`). */
export function tapesOwnReport(repo: FixtureRepo): string {
  writeFileSync(join(repo.dir, "test/zz-env.test.js"), TAPE_READY);
  const tap = execFileSync(join(repo.dir, "node_modules/.bin/tape"), ["test/**/*.test.js"], {
    cwd: repo.dir,
    encoding: "utf8",
  });
  expect(tap).toContain("# ok");
  return tap;
}

/**
 * Attacks 54e and 55 against one runner's report, as a conformance spec: the attempt fixes slugify,
 * breaks clamp and adds test/zz-env.test.js, which forges the runner's report by one route.
 * - file: a watcher writes the forged report where the report file went: devflow's write replaces it;
 * - channel: the watcher sends it over devflow's channel: a second connection, so tampering;
 * - kill: code the runner loads before it makes its reporter sends it and kills the runner (or
 *   devflow's hook): devflow's hook connected first, so tampering, not a pass;
 * - a control: the break alone fails by name.
 */
export function describeReportChannelAttacks(attack: ReportChannelAttack): void {
  async function run(route: ReportRoute | null, onTestFinished: (fn: () => Promise<void>) => void) {
    const repo = await fixtureProject(attack.runner, {}, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    await fixSlug(repo);
    if (route === null) {
      await breakClamp(repo);
      return fixtureRegression(repo, "npm test", base);
    }
    const forged = await attack.ownReport(repo);
    await breakClamp(repo);
    const reportDirs = [join(repo.outside, "regression.log.out")];
    writeFileSync(
      join(repo.dir, "test/zz-env.test.js"),
      route === "kill"
        ? attack.killerTest(forged, repo.dir)
        : attack.watcherTest(reportWatcher(forged, repo.dir, route, reportDirs)),
    );
    return fixtureRegression(repo, "npm test", base, "test/slug.test.js", CHANGED);
  }

  describe(`attacks 54e and 55 against ${attack.runner}'s report`, () => {
    it("file route: a forged report where the report file went does not count", async ({
      onTestFinished,
    }) => {
      const envelope = await run("file", onTestFinished);
      console.log(`${attack.runner} attack54e (file):`, envelope.overall_result, envelope.summary);
      expect(envelope.overall_result, envelope.summary).toBe("fail");
      expect(envelope.summary).toContain(attack.brokenClamp);
      expect(envelope.summary, "the watcher attacked").not.toContain("environment is ready");
    }, 240_000);

    it.for(["channel", "kill"] as const)(
      "%s route: a forged report sent over devflow's channel is tampering",
      { timeout: 240_000 },
      async (route, { onTestFinished }) => {
        const envelope = await run(route, onTestFinished);
        const name = `${attack.runner} attack${route === "kill" ? "55" : "54e"} (${route}):`;
        console.log(name, envelope.overall_result, envelope.summary);
        expect(envelope.overall_result, envelope.summary).toBe("error");
        expect(envelope.summary).toContain("2 connections reached devflow's report channel");
      },
    );

    it("(control) the break without an attack fails naming clamp", async ({ onTestFinished }) => {
      const envelope = await run(null, onTestFinished);
      expect(envelope.overall_result, envelope.summary).toBe("fail");
      expect(envelope.summary).toContain(attack.brokenClamp);
    }, 240_000);
  });
}
