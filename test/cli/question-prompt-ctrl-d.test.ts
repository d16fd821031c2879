// Regression (issue 11, CLI feel): Ctrl-D at devflow's "Your answer:" prompt ended the run with
// "devflow: Aborted with Ctrl+D" and exit 1 (an internal failure), and the line that said how to
// answer later named only `--resume --task-id`, without the coder or cassette the run used (a
// bare --resume of a command: coder is refused since stop 27). Cause: node's readline rejects a
// pending question on end of input. Fix: src/cli/terminal-line.ts reads a line or null; null leaves
// the task waiting for answers (exit 3) with the full resume command, which then asks again. And
// the paused task was listed as "interrupted" (the asking node cannot record its state before the
// pause); the lane now records needs_more_context when it pauses.
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { openTaskStore } from "../../src/home/index.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  needsAnswersCassette,
  writeCassette,
} from "../support/lane-harness.js";
import { answerPromptsInPty, CTRL_D, ptyEnv } from "../support/pty-prompts.js";
import { screenOf } from "../support/screen.js";

it("Ctrl-D at a question leaves the task waiting (exit 3) with a resume command that asks again and completes", {
  timeout: 240_000,
}, async () => {
  const repo = createFixtureRepo("csv-import");
  // First framing asks; the re-framing after the answer is the demo's own.
  const cassette = needsAnswersCassette("Which field has the spaces?");
  const replay = writeCassette(cassette);
  const coder = coderScript(CORRECT_FIX);
  const first = await answerPromptsInPty({
    args: [DEVFLOW_BIN, "iterate", DEMO_REQUEST, "--task-id", "asked", "--coder", coder, "--replay", replay],
    cwd: repo,
    env: ptyEnv(),
    rows: 60,
    answers: [["Your answer:", CTRL_D]],
    timeoutMs: 100_000,
  });
  const screen = screenOf(first.raw).join("\n");
  expect(first.code, screen).toBe(3);
  expect(screen).not.toContain("Aborted");
  expect(screen).toContain("asked is waiting for answers:\n  - Which field has the spaces?");
  const line = screen.split("\n").find((l) => l.startsWith("Answer them on a terminal: "));
  const command = line?.slice("Answer them on a terminal: ".length) ?? "";
  // Nothing was decided: the task is paused at its question, not ended.
  const run = await openTaskStore(repo, "asked").read("iterator_run");
  expect(run?.terminal ?? null).toBeNull();
  expect(run?.run_state).toBe("needs_more_context");
  const shown = execFileSync(process.execPath, [DEVFLOW_BIN, "show", "asked", "-r", repo, "--json"], {
    encoding: "utf8",
  });
  expect(JSON.parse(shown)).toMatchObject({ state: "needs_more_context", finished: false });

  // The printed command, word by word as a shell reads it, run as it is: it asks again.
  const words = execFileSync(
    "sh",
    ["-c", `set -- ${command.replace(/^devflow /, "")}; printf '%s\\n' "$@"`],
    {
      encoding: "utf8",
    },
  )
    .trimEnd()
    .split("\n");
  expect(words).toEqual(["iterate", "--resume", "--task-id", "asked", "--coder", coder, "--replay", replay]);
  const second = await answerPromptsInPty({
    args: [DEVFLOW_BIN, ...words],
    cwd: repo,
    env: ptyEnv(),
    rows: 60,
    answers: [["Your answer:", "The email field"]],
    timeoutMs: 200_000,
  });
  expect(second.code, screenOf(second.raw).join("\n")).toBe(0);
  expect((await openTaskStore(repo, "asked").read("iterator_run"))?.terminal?.verdict).toBe("completed");
});
