/**
 * Regression (stop 47's CI): "completes the correct fix on vitest" (seam-name-filter-rejected-the-
 * correct-fix) ended `exhausted` in a full run and passed alone.
 *
 * Cause: every fixture repo links the one runner cache as its `node_modules`, and vitest keeps its
 * results cache under `<root>/node_modules/.vite/vitest/<hash>/results.json`, so all vitest runs of
 * the test run shared one file. A lane test's seam read it, a fixture-level test in another file
 * rewrote it while that task ran, and devflow rightly rejected the task: a file its seam read,
 * outside the checkout, changed. Fix: the runner cache holds a directory at that path; vitest's read
 * and write of its results cache fail and vitest (which catches both) runs without one.
 * Mutation: `withoutSharedResultsCache` returning early → the run writes a results file (red).
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ensureRunnerInstalled, makeFixtureRepo } from "./runner-fixture.js";

it("a vitest run in a fixture repo writes no results cache into the shared runner cache", async () => {
  const modules = await ensureRunnerInstalled("vitest");
  const repo = await makeFixtureRepo("vitest");
  const { report } = await repo.runWithReport();
  // The run itself worked: the fixture's tests were reported (one fails on purpose).
  expect(report.tests.length).toBeGreaterThan(1);
  const results = join(
    modules,
    ".vite",
    "vitest",
    "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "results.json",
  );
  expect((await stat(results)).isDirectory()).toBe(true);
}, 300_000);
