import { expect, it } from "vitest";
import { CORRECT_FIX, coderScript, demoCassette, runLane } from "../support/lane-harness.js";

function planInvalidCassette() {
  const cassette = demoCassette();
  const framer = cassette.calls.framer?.[0];
  const observerFinal = cassette.calls.observer?.at(-1);
  const critic = cassette.calls.critic?.[0];
  if (!framer || !observerFinal || !critic || !("structured" in critic))
    throw new Error("demo cassette changed shape");
  const invalid = {
    structured: {
      ...critic.structured,
      plan_invalid: true,
      summary: "The CSV also has a BOM: the task assumed plain ASCII.",
    },
  };
  cassette.calls.framer = [framer, framer];
  cassette.calls.observer = [...(cassette.calls.observer ?? []), observerFinal];
  cassette.calls.critic = [invalid, critic];
  return cassette;
}

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
