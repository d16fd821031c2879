import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import {
  CORRECT_FIX,
  coderScript,
  demoCassette,
  needsAnswersCassette,
  runLane,
} from "../support/lane-harness.js";

it("interactive needs_more_context: the question interrupts, the answer re-frames the same task (r2), then it completes", async () => {
  const cassette = needsAnswersCassette("Which field has the spaces: the email or the name?");
  const asked: string[][] = [];
  const run = await runLane({
    cassette,
    coder: coderScript(CORRECT_FIX),
    onQuestions: async (q) => {
      asked.push(q.questions);
      return "The email field: ' alice@example.com ' has a space on each side.";
    },
  });
  expect(run.error).toBeNull();
  expect(asked).toEqual([["Which field has the spaces: the email or the name?"]]);
  expect(run.result?.terminal.verdict).toBe("completed");
  const task = await run.store.read("task_artifact");
  expect(task?.revision).toBe(2);
  expect(task?.prior_turns.at(-1)?.content).toMatch(/space on each side/);
  expect(await run.store.history("task_artifact")).toEqual([1]);
  expect(existsSync(join(run.store.dir, "history", "task_artifact.r001.json"))).toBe(true);
  const iterator = await run.store.read("iterator_run");
  expect(iterator?.readiness?.cites.task_artifact_revision).toBe(2);
  const observation = await run.store.read("observation_artifact");
  expect(observation?.task_revision).toBe(2);
});

it("non-interactive needs_more_context stops with the questions and never spawns a coder", async () => {
  const cassette = demoCassette();
  const framed = cassette.calls.framer?.[0];
  if (!framed || !("structured" in framed)) throw new Error("demo cassette lost its framer answer");
  cassette.calls.framer = [
    {
      structured: {
        ...framed.structured,
        blocking_unknowns: ["Which CSV file shows the problem?"],
        recommended_next_step: "needs_more_context",
      },
    },
  ];
  const run = await runLane({ cassette, coder: coderScript(CORRECT_FIX) });
  expect(run.result?.terminal.verdict).toBe("needs_more_context");
  expect(run.result?.terminal.questions).toEqual(["Which CSV file shows the problem?"]);
  expect(existsSync(join(run.store.dir, "attempts"))).toBe(false);
  expect((await run.store.read("iterator_run"))?.run_state).toBe("needs_more_context");
});
