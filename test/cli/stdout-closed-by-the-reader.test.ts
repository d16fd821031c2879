/**
 * Regression: `devflow demo --json | head -1` crashed with `Error: write EPIPE` and a stack trace
 * ("Unhandled 'error' event"), exit 1, the run cut off wherever the next write happened. Cause:
 * nothing handled stdout's 'error' event. Fix (src/cli/io.ts): a closed stdout stops a run the way
 * SIGTERM does (coder tree ended, nothing committed, resumable, exit 143) and any other command
 * leaves quietly. Mutation: removing the `process.stdout.on("error", …)` handler → the stack trace
 * and exit 1 come back (seen red).
 */
import { expect, it } from "vitest";
import { startDevflow } from "../support/devflow-process.js";

it("a run whose reader closes stdout stops like SIGTERM, without an EPIPE stack trace", async () => {
  const run = startDevflow(["demo", "--json"]);
  // The reader takes one chunk and goes, as `head -1` does.
  await new Promise<void>((resolve) =>
    run.child.stdout.once("data", () => {
      run.child.stdout.destroy();
      resolve();
    }),
  );
  const code = await run.exit;
  expect(run.stderr()).not.toMatch(/EPIPE|Unhandled 'error'|at .*\(node:/);
  expect(code).toBe(143);
  expect(run.stderr()).toContain("stopped by SIGTERM");
}, 120_000);
