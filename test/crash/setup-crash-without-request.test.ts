/**
 * A crash while a task was set up (before the Framer stored the request) is resumed from the
 * task's first node (ADR 0033, test/crash/kill-at-every-point.test.ts chain "setup"); that needs
 * the request, which only the crashed process had. Regression "a crash before the run record was
 * written left a task --resume refused": `--resume` said "no iterator_run.json to resume from" and
 * a new run said the task exists. Now a bare `--resume --task-id` of such a task is refused with the
 * one command that resumes it, before any model call or checkout, and nothing of the task changes.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DevflowError } from "../../src/errors/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { taskDir } from "../../src/home/index.js";
import { CORRECT_FIX, coderScript, runLane, TASK_ID } from "../support/lane-harness.js";

it("a crash before the run record was written left a task --resume refused (regression): a bare --resume is told to pass the request", async () => {
  const repo = createFixtureRepo("csv-import");
  // What a crash right after the task lock leaves: the task's dir and nothing else.
  mkdirSync(taskDir(repo, TASK_ID), { recursive: true });
  const run = await runLane({
    repo,
    request: "",
    taskId: TASK_ID,
    resume: true,
    coder: coderScript(CORRECT_FIX),
  });
  expect(run.error).toBeInstanceOf(DevflowError);
  expect((run.error as DevflowError).code).toBe("REQUEST_EMPTY");
  expect((run.error as Error).message).toBe(
    `task "${TASK_ID}" stopped while it was set up, before its request was stored; resume it with the request: devflow iterate --resume --repo ${repo} --task-id ${TASK_ID} "<the request>"`,
  );
  expect(existsSync(join(repo, ".devflow", "worktrees", TASK_ID))).toBe(false);
  expect(readdirSync(taskDir(repo, TASK_ID)).filter((f) => !f.startsWith("run.lock"))).toEqual([]);
});
