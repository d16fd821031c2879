import { expect, it } from "vitest";
import { CORRECT_FIX, coderScript, planInvalidCassette, runLane } from "../support/lane-harness.js";

it("plan_invalid in an interactive run asks to re-plan; the answer re-frames the same task (r2) and attempts continue", async () => {
  const asked: string[] = [];
  const run = await runLane({
    cassette: planInvalidCassette(),
    coder: coderScript(CORRECT_FIX),
    onQuestions: async (q) => {
      asked.push(q.kind);
      return "Files may start with a UTF-8 BOM; only emails need trimming.";
    },
  });
  expect(run.error).toBeNull();
  expect(asked).toEqual(["replan"]);
  expect(run.result?.terminal.verdict).toBe("completed");
  expect((await run.store.read("task_artifact"))?.revision).toBe(2);
  const iterator = await run.store.read("iterator_run");
  expect(iterator?.attempts.map((a) => a.attempt_id)).toEqual(["attempt-001", "attempt-002"]);
  expect(iterator?.readiness?.cites.task_artifact_revision).toBe(2);
  expect(iterator?.state_history.some((s) => /re-plan 1 of 2 approved/.test(s.reason))).toBe(true);
});

it("plan_invalid without an approval channel blocks with the reason", async () => {
  const run = await runLane({ cassette: planInvalidCassette(), coder: coderScript(CORRECT_FIX) });
  expect(run.result?.terminal.verdict).toBe("blocked");
  expect(run.result?.terminal.reason).toMatch(/plan_invalid/);
});
