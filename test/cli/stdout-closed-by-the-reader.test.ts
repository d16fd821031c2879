/**
 * Regression: `devflow demo --json | head -1` crashed with `Error: write EPIPE` and a stack trace
 * ("Unhandled 'error' event"), exit 1, the run cut off wherever the next write happened. Cause:
 * nothing handled stdout's 'error' event. Fix (src/cli/io.ts): a closed stdout stops a run the way
 * SIGTERM does (coder tree ended, nothing committed, resumable, exit 143) and any other command
 * leaves quietly. Mutation: removing the `process.stdout.on("error", …)` handler → the stack trace
 * and exit 1 come back (seen red).
 */
import { expect, it } from "vitest";
import { ResultLine } from "../../src/artifacts/schemas/cli-lines.js";
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

/**
 * Regression: a stopped `--json` run's result line named its task only inside the error's
 * sentence, so a script could not continue it. Fix: the result carries `task_id` (and
 * `resume_command` where the command is resumable; the demo is run again, not resumed), and it
 * validates against ResultLine. Mutation: stoppedResultLine dropping task_id → red.
 */
it("a --json run stopped by SIGTERM ends with one result line that names the task", async () => {
  const run = startDevflow(["demo", "--json"]);
  await new Promise<void>((resolve) => run.child.stdout.once("data", () => resolve()));
  run.child.kill("SIGTERM");
  expect(await run.exit).toBe(143);
  const lines = run
    .stdout()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const results = lines.filter((l) => l.type === "result");
  expect(results).toHaveLength(1);
  const result = ResultLine.parse(results[0]);
  expect(result.exit_code).toBe(143);
  expect(result.error?.code).toBe("INTERRUPTED");
  expect(result.task_id).toMatch(/^csv-import-/);
  expect(result.resume_command).toBeUndefined();
}, 120_000);
