import { expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { openTaskStore } from "../../src/home/index.js";
import { iterateLane } from "../../src/lanes/iterate/run.js";
import { cli } from "../support/cli.js";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  demoCassette,
  writeCassette,
} from "../support/lane-harness.js";

// A task paused with questions by an interactive driver (the chat, a TTY) and resumed where nothing
// can ask (--json, --yes, no TTY) ends needs_more_context with the same questions: exit 3.
it("--resume of a task waiting for answers, without a way to ask, ends it needs_more_context (exit 3)", async () => {
  const repo = createFixtureRepo("csv-import");
  const cassette = demoCassette();
  const framed = cassette.calls.framer?.[0];
  if (!framed || !("structured" in framed)) throw new Error("demo cassette lost its framer answer");
  cassette.calls.framer = [
    {
      structured: {
        ...framed.structured,
        blocking_unknowns: ["Which field has the spaces?"],
        recommended_next_step: "needs_more_context",
      },
    },
  ];
  const coder = coderScript(CORRECT_FIX);
  const lane = iterateLane({
    repo,
    baseDir: ".",
    model: "gpt-4.1-mini",
    coder,
    mode: "replay",
    cassettePath: writeCassette(cassette),
    lane: { maxJudgeAttempts: 3 },
    onProgress: () => {},
    interactive: true,
  });
  expect((await lane.run({ request: DEMO_REQUEST, taskId: "paused", resume: false })).kind).toBe(
    "needs_answers",
  );

  const run = await cli(
    "iterate",
    "--resume",
    "--task-id",
    "paused",
    "-r",
    repo,
    "--coder",
    coder,
    "--json",
    "--replay",
    writeCassette(demoCassette()),
  );
  expect(run.code).toBe(3);
  const last = JSON.parse(run.out.trim().split("\n").at(-1) ?? "{}");
  expect(last).toMatchObject({
    type: "result",
    task_id: "paused",
    terminal: { verdict: "needs_more_context", questions: ["Which field has the spaces?"] },
  });
  const terminal = (await openTaskStore(repo, "paused").read("iterator_run"))?.terminal;
  expect(terminal?.verdict).toBe("needs_more_context");
});
