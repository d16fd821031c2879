/**
 * Each task of a replayed plan checks its own cassette part for unused answers (issue 13): a task
 * that consumed fewer model answers than its part (`T2.json`) records has diverged from the
 * recording. The compose lane reports the leftovers per task (`onUnusedAnswers`) and `devflow plan`
 * warns on stderr naming the task and its part, as `devflow iterate --replay` warns (a warning,
 * not an error: the exit code stays the plan's; the playground fails the scenario instead). A clean
 * cassette warns nothing: pinned by test/cli/plan-replan-edit-prompt.test.ts. In-process CLI,
 * replayed models, the scripted plan coder on a real fixture repo.
 */
import { expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { cli } from "../support/cli.js";
import { planCassettes, planCoder } from "../support/compose-harness.js";

it("a plan replay whose T2 part has one extra critic answer warns naming T2 and its part; the plan still completes", {
  timeout: 600_000,
}, async () => {
  const cassettes = planCassettes({
    T2: (c) => {
      const critic = c.calls.critic?.[0];
      if (!critic) throw new Error("T2 lost its critic answer");
      c.calls.critic?.push(structuredClone(critic));
    },
  });
  const repo = createFixtureRepo("csv-import");
  const run = await cli(
    "plan",
    PLAN_DEMO_REQUEST,
    "-r",
    repo,
    "--yes",
    "--no-input",
    "--replay",
    cassettes,
    "--coder",
    planCoder("repair"),
  );
  expect(run.code, run.err).toBe(0);
  const warnings = run.err.split("\n").filter((l) => l.includes("warning: cassette"));
  // Exactly T2's leftover: T1's and T3's parts are used up. (This check found one iterator answer
  // no call used in the bundled demo's T1.json and one in a compose scenario's T2.json: trimmed.)
  expect(warnings, run.err).toEqual([
    `devflow: warning: cassette ${cassettes}/T2.json (task T2): 1 answer(s) not used (critic 1); the run made fewer model calls than the cassette scripts`,
  ]);
});
