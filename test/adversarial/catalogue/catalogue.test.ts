/**
 * Runs the adversarial catalogue (behaviours.ts) against the csv-import fixture with a lenient
 * critic. For every entry: the verdict (a `rejected` entry never `completed`, a `completes` entry
 * completes with the right content on devflow/<task_id>), no process left behind (/proc: nothing
 * carrying our run marker or started from the entry's temp dir), and the user's repository
 * byte-identical, `.git` internals included, except for what DEVFLOW_MAY_CHANGE allows.
 *
 * Entries run concurrently, a few at a time, each on its own byte copy of one shared template.
 * The mount namespace is off here, so the detection layer (what macOS and unprivileged Linux
 * have) is what each entry tests; catalogue-mount-namespace.test.ts runs the entries that attack
 * the user's repository with it on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leftoverProcesses } from "../../support/leftover-processes.js";
import { BEHAVIOURS } from "./behaviours.js";
import { catalogueTemplate } from "./fixture.js";
import { limited, RUN_NEEDS, runEntry } from "./run-entry.js";

process.env.DEVFLOW_NO_MOUNT_NAMESPACE = "1";

const counts = { runs: 0, started: 0 };
beforeAll(() => {
  catalogueTemplate();
  counts.started = Date.now();
});
afterAll(() => {
  expect(
    leftoverProcesses("/nonexistent-dir/", { marker: true }),
    "processes carrying our run marker",
  ).toEqual([]);
  // Wall time for the report (stdout of the test run).
  console.log(
    `adversarial catalogue: ${counts.runs} entries in ${((Date.now() - counts.started) / 1000).toFixed(1)} s`,
  );
});

describe("the catalogue itself", () => {
  it("has at least 30 runnable behaviours covering every class 1-13, several per class", () => {
    const names = BEHAVIOURS.map((b) => b.name);
    expect(new Set(names).size).toBe(names.length);
    const runnable = BEHAVIOURS.filter((b) => !b.needs);
    expect(runnable.length).toBeGreaterThanOrEqual(30);
    for (let c = 1; c <= 13; c += 1)
      expect(BEHAVIOURS.filter((b) => b.issueClass === c).length, `class ${c}`).toBeGreaterThanOrEqual(2);
    expect(runnable.filter((b) => b.expect === "completes").length).toBeGreaterThanOrEqual(8);
  });
});

describe.concurrent("adversarial catalogue (csv-import, node:test, lenient critic)", () => {
  for (const b of BEHAVIOURS) {
    const title = `[${b.issueClass}] ${b.name}: ${b.expect === "completes" ? "completes" : "is rejected"}`;
    if (b.needs && !RUN_NEEDS) {
      it.todo(`${title} (needs ${b.needs})`);
      continue;
    }
    it(
      title,
      () =>
        limited(async () => {
          counts.runs += 1;
          await runEntry(b);
        }),
      600_000,
    );
  }
});
