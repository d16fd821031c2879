/**
 * `DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS` / `DEVFLOW_MAX_IDLE_CODER_CHECKOUTS` with a bad value: one
 * parser (`wholeNumberFromEnv`, it was written twice) and one line naming the variable and the range,
 * through the real CLI (exit 2), before a coder starts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { DEMO_CASSETTE } from "../../src/fixtures/demo.js";
import { cli } from "../support/cli.js";
import { CORRECT_FIX, coderScript, DEMO_REQUEST } from "../support/lane-harness.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("a bad max-idle-checkouts value", () => {
  it("DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS=1.5 stops the run with one line naming it and the range", async () => {
    vi.stubEnv("DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS", "1.5");
    const repo = createFixtureRepo("csv-import");
    const r = await cli(
      "iterate",
      DEMO_REQUEST,
      "-r",
      repo,
      "--coder",
      coderScript(CORRECT_FIX),
      "--replay",
      DEMO_CASSETTE,
    );
    expect(r.code, r.err).toBe(2);
    const lines = r.err.split("\n").filter((l) => l.includes("DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS"));
    expect(lines).toEqual([
      'devflow: DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS must be a whole number ≥ 0 (got "1.5")',
    ]);
  }, 120_000);
});
