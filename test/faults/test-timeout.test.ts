import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { cli } from "../support/cli.js";
import { DEMO_REQUEST, demoCassette, NEAR_MISS_CODER, writeCassette } from "../support/lane-harness.js";

/**
 * Regression "a never-ending --test-cmd is stopped after a fixed 300 s that cannot be configured":
 * the lane's commandTimeoutMs had no flag or variable. Fix: --test-timeout (iterate, chat) and
 * DEVFLOW_TEST_TIMEOUT set it (lane/test-timeout.ts); the verifier's failure names the command,
 * the limit that ran out and the variable that raises it (src/verify/run-command.ts).
 */
describe("test-command timeout", () => {
  it("a never-ending --test-cmd is stopped after a fixed 300 s that cannot be configured (regression)", {
    timeout: 180_000,
  }, async () => {
    const repo = createFixtureRepo("csv-import");
    const started = Date.now();
    const r = await cli(
      "iterate",
      DEMO_REQUEST,
      "-r",
      repo,
      "--coder",
      NEAR_MISS_CODER,
      "--replay",
      writeCassette(demoCassette()),
      "--test-cmd",
      "sleep 600",
      "--test-timeout",
      "1",
      "-n",
      "1",
      "--json",
    );
    // Every test run of the task stopped after 1 s, not 300 s.
    expect(Date.now() - started).toBeLessThan(120_000);
    const result = JSON.parse(r.out.trim().split("\n").at(-1) ?? "{}");
    expect(result.type).toBe("result");
    expect(r.code).toBe(3);
    // The verdict says which command ran out of time, after how long, and how to raise the limit.
    expect(JSON.stringify(result.terminal)).toMatch(
      /timed out after 1 ?s and was killed \(the test-command limit: raise it with DEVFLOW_TEST_TIMEOUT=<seconds>\)/,
    );
  });
});
