/**
 * Regression (stop 29): a seam that selects its test by name (`jest -t collapses`, `mocha --grep
 * collapses`, `vitest run -t collapses`; an Observer writes such commands) deselected the seam
 * canary devflow adds to every named seam run, and the canary's absence was read as tampering: the
 * correct fix ended `exhausted` with "the canary test … was reported skip (assertion library or
 * reporter tampered)" on all three runners: a false rejection, and a false accusation in the
 * record. Fix: a runner's name-filter flags (`RunnerAdapter.nameFilter`) in the seam command leave
 * the canary out; the seam is still judged by its pinned tests by name, and the gate's caveat
 * says no canary ran. Mutation: the filter check removed from planCanary → exhausted (red).
 *
 * Real runners, real repos, the real lane with `command:` coders.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../reports/runner-fixture.js";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { attemptEnvelope, slugLane } from "../support/runner-lane.js";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

const SEAMS: ["jest" | "mocha" | "vitest", string][] = [
  ["jest", "npx jest test/slug.test.js -t collapses"],
  ["mocha", "npx mocha test/slug.test.js --grep collapses"],
  ["vitest", "npx vitest run test/slug.test.js -t collapses"],
];

const CORRECT = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
console.log("Runs of whitespace become one dash.");
`;

describe.concurrent("a seam selecting its test by name", () => {
  beforeAll(() => Promise.all(SEAMS.map(([runner]) => ensureRunnerInstalled(runner))), 300_000);

  for (const [runner, seam] of SEAMS)
    it(
      `completes the correct fix on ${runner}, saying no canary ran`,
      () =>
        limited(async () => {
          const run = await slugLane(runner, CORRECT, { seam });
          expect(run.error).toBeNull();
          const record = await run.store.read("iterator_run");
          expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
          const envelope = await attemptEnvelope(run, "seam");
          expect(envelope?.native_payload).toMatchObject({
            evidence: "named_tests",
            canary: { status: "not_run", reason: expect.stringContaining("selects tests by name") },
          });
          expect(record?.terminal?.gate?.caveats).toEqual([
            expect.objectContaining({
              verifier: "seam",
              caveat: expect.stringContaining("no seam canary ran"),
            }),
          ]);
        }),
      300_000,
    );
});
