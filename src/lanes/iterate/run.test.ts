import { expect, it } from "vitest";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  needsAnswersCassette,
  writeCassette,
} from "../../../test/support/lane-harness.js";
import { createFixtureRepo } from "../../fixtures/create-fixture-repo.js";
import { openTaskStore } from "../../home/index.js";
import { LaneOutcome } from "../outcome.js";
import { iterateLane } from "./run.js";

it("a lane that needs answers returns needs_answers; resume(taskId, answer) continues the same task to finished", async () => {
  const repo = createFixtureRepo("csv-import");
  const lane = iterateLane({
    repo,
    baseDir: ".",
    model: "gpt-4.1-mini",
    coder: coderScript(CORRECT_FIX),
    mode: "replay",
    cassettePath: writeCassette(needsAnswersCassette("Which field has the spaces: the email or the name?")),
    lane: { maxJudgeAttempts: 3, baseTimeoutMs: 60_000, commandTimeoutMs: 60_000 },
    onProgress: () => {},
    interactive: true,
  });

  const paused = await lane.run({ request: DEMO_REQUEST, taskId: "ask-first", resume: false });
  expect(LaneOutcome.parse(paused)).toEqual({
    kind: "needs_answers",
    lane: "iterate",
    task_id: "ask-first",
    asks: "needs_more_context",
    questions: ["Which field has the spaces: the email or the name?"],
  });
  const store = openTaskStore(repo, "ask-first");
  expect((await store.read("iterator_run"))?.terminal).toBeNull();

  // Without an answer nothing runs: the task is still waiting and says so again.
  expect((await lane.resume("ask-first", null)).kind).toBe("needs_answers");

  const done = await lane.resume("ask-first", "The email field: it has a space on each side.");
  expect(done.kind).toBe("finished");
  if (done.kind !== "finished") return;
  expect(LaneOutcome.parse(done).kind).toBe("finished");
  expect(done.result.taskId).toBe("ask-first");
  expect(done.result.terminal.verdict).toBe("completed");
  expect((await store.read("task_artifact"))?.revision).toBe(2);
  expect((await store.read("iterator_run"))?.terminal?.verdict).toBe("completed");
});
