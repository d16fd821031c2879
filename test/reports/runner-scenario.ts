import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareReports, failingKeys } from "../../src/verify/test-reports/compare-reports.js";
import type { ReportedTest, TestReport } from "../../src/verify/test-reports/test-report.js";
import { type FixtureRepo, type FixtureRunner, makeFixtureRepo } from "./runner-fixture.js";

export interface ScenarioExpectations {
  /** False for runners whose report names no file (tape's TAP). */
  namesFiles: boolean;
  /** Whether the fixture declares a todo test the runner reports. */
  hasTodo: boolean;
}

/**
 * One fixture repo per runner, run for real through its adapter: on base, after the correct fix,
 * and after a change that breaks two same-named tests in different files.
 */
export function describeRunnerFixture(runner: FixtureRunner, expected: ScenarioExpectations): void {
  describe(`${runner}: real runner, real report`, () => {
    let repo: FixtureRepo;
    let baseline: TestReport;

    beforeAll(async () => {
      repo = await makeFixtureRepo(runner); // the first call installs the runner from npm
      const run = await repo.runWithReport();
      baseline = run.report;
      expect(run.exitCode, run.command).not.toBe(0);
    }, 300_000);
    afterAll(() => repo?.cleanup());

    it("reads a complete report with one key per test, same titles kept apart", () => {
      expect(baseline.parse_errors).toEqual([]);
      expect(baseline.complete).toBe(true);
      expect(baseline.source).toBe("reporter");
      const works = baseline.tests.filter((t) => t.id.title === "works");
      expect(works).toHaveLength(5);
      expect(new Set(works.map((t) => t.key)).size).toBe(5);
      expect(new Set(baseline.tests.map((t) => t.key)).size).toBe(baseline.tests.length);
      if (expected.namesFiles) {
        const mathWorks = works.filter((t) => t.id.suites.join(" ") === "math");
        expect(mathWorks.map((t) => t.id.file).sort()).toEqual(["test/math.test.js", "test/slug.test.js"]);
        const nested = works.find((t) => t.id.suites.join(" ") === "math clamp");
        expect(nested?.id.file).toBe("test/math.test.js");
        const topLevel = works.find((t) => t.id.suites.length === 0);
        expect(topLevel?.id.file).toBe("test/math.test.js");
      }
    });

    it("names the seam as the only failing test, and every test of the passing file passes", () => {
      const failing = baseline.tests.filter((t) => t.status === "fail");
      expect(failing.map((t) => t.id.title)).toEqual(["collapses repeated spaces"]);
      if (expected.namesFiles) {
        expect(failing[0]?.id).toEqual({
          file: "test/slug.test.js",
          suites: ["slug"],
          title: "collapses repeated spaces",
        });
        const mathFile = baseline.tests.filter((t) => t.id.file === "test/math.test.js");
        expect(mathFile).toHaveLength(3);
        expect(mathFile.every((t) => t.status === "pass")).toBe(true);
      }
      expect(statusOf(baseline.tests, "keeps unicode letters")).toBe("skip");
      if (expected.hasTodo) expect(statusOf(baseline.tests, "transliterates")).toBe("todo");
    });

    it("an unchanged tree leaves the seam failing", () => {
      const same = compareReports(baseline, baseline, { seamKeys: failingKeys(baseline) });
      expect(same.kind).toBe("compared");
      if (same.kind !== "compared") return;
      expect(same.seam.pass).toBe(false);
      expect(same.regression.pass).toBe(true);
    });

    it("the correct fix passes the seam with no regression", async () => {
      await edit(repo, "src/slug.js", ".replace(/ /g,", ".replace(/\\s+/g,");
      const { report } = await repo.runWithReport();
      const result = compareReports(baseline, report, { seamKeys: failingKeys(baseline) });
      expect(result.kind).toBe("compared");
      if (result.kind !== "compared") return;
      expect(result.seam).toMatchObject({ pass: true, reasons: [] });
      expect(result.seam.tests.map((t) => t.now)).toEqual(["pass"]);
      expect(result.regression).toMatchObject({ pass: true, regressions: [], new_failures: [] });
    }, 60_000);

    it("a change breaking two same-named tests in different files reports both", async () => {
      await edit(repo, "src/math.js", "return a + b;", "return a - b;");
      const { report } = await repo.runWithReport();
      const result = compareReports(baseline, report, { seamKeys: failingKeys(baseline) });
      if (result.kind !== "compared") throw new Error(result.reason);
      expect(result.seam.pass).toBe(true);
      expect(result.regression.pass).toBe(false);
      expect(result.regression.regressions).toHaveLength(2);
      expect(result.regression.regressions.every((r) => r.now === "fail")).toBe(true);
      if (expected.namesFiles)
        expect(result.regression.regressions.map((r) => r.name).sort()).toEqual([
          "test/math.test.js > math > works",
          "test/slug.test.js > math > works",
        ]);
    }, 60_000);
  });
}

function statusOf(tests: readonly ReportedTest[], title: string): string | undefined {
  return tests.find((t) => t.id.title === title)?.status;
}

async function edit(repo: FixtureRepo, path: string, from: string, to: string): Promise<void> {
  const text = await readFile(join(repo.dir, path), "utf8");
  if (!text.includes(from)) throw new Error(`${path} does not contain ${from}`);
  await repo.write(path, text.replace(from, to));
}
