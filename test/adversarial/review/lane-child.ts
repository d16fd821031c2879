/**
 * Runs one catalogue lane in a process of its own, so that what a test plants in "devflow's
 * environment" is really in devflow's process environment (/proc/<pid>/environ shows the
 * environment a process started with, not later `process.env` edits). Usage:
 * `tsx lane-child.ts <repo> <coder script>`; prints `{ verdict, reason }` as its last line.
 */
import { runLane } from "../../support/lane-harness.js";
import { CATALOGUE_TASK, catalogueCassette } from "../catalogue/fixture.js";

const [repo, script] = process.argv.slice(2);
if (!repo || !script) throw new Error("usage: lane-child.ts <repo> <coder script>");
const run = await runLane({
  repo,
  taskId: CATALOGUE_TASK,
  cassette: catalogueCassette(),
  coder: `command:node ${JSON.stringify(script)}`,
  lane: { maxJudgeAttempts: 1 },
});
console.log(
  JSON.stringify({
    verdict: run.result?.terminal.verdict ?? null,
    reason: run.result?.terminal.reason ?? (run.error ? String(run.error) : null),
  }),
);
