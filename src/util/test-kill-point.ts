import { writeSync } from "node:fs";

/**
 * A crash-test hook (ADR 0033): `DEVFLOW_TEST_KILL_AT=<point>[@<n>]` makes this process SIGKILL
 * itself the n-th time (default 1) it reaches the named point, so test/crash/ can stop devflow
 * deterministically inside a node's side effects. Inert unless the variable is set; it can only end
 * the process (nothing else reads it, and devflow's children never inherit it: src/process/env.ts
 * passes an allowlist), so it cannot be used to reach or fake a verdict.
 *
 * The points (every one is listed in KILL_POINTS; a name not listed there is refused loudly, so a
 * renamed point cannot make a crash test silently pass without crashing):
 * - `<node>:end` for every node of the iterate lane: the node's body and its end event are done,
 *   its checkpoint is not written yet (LangGraph re-runs the node on --resume).
 * - named points inside a node's side effects, between two writes (see KILL_POINTS).
 */
export const TEST_KILL_AT_ENV = "DEVFLOW_TEST_KILL_AT";
/** The stderr line written just before the kill. */
export const KILL_NOTICE = "[devflow test hook] SIGKILL at ";

export const KILL_POINTS = [
  "frame:end",
  "observe:end",
  "readiness:end",
  "code:end",
  "verify:end",
  "gate:end",
  "repair:end",
  "commit:end",
  "replan:end",
  "ask:end",
  "handoff:end",
  /** Setup: the task lock taken and dead runs swept, nothing of the task made yet (no run record). */
  "setup.locked",
  /** Setup: the run record written (or, resumed, found with nothing run), the coder's checkout about to be made. */
  "setup.run-recorded",
  /** Setup: the coder's and the verification checkout made, the lane's first checkpoint not written. */
  "setup.checkouts-made",
  /** task_artifact written, confirmation.md not yet. */
  "frame.task-written",
  /** The seam ran on base, observation_artifact not written yet. */
  "observe.seam-checked",
  /** The attempt's coder prompt written, the coder not started. */
  "code.prompt-written",
  /** The coder ran (its processes ended), coder_report.json not written yet. */
  "code.coder-ran",
  /** The first verifier envelope of the attempt written, the others not. */
  "verify.envelope-written",
  /** The attempt summary recorded in iterator_run.json, the gate's decision not returned. */
  "gate.attempt-recorded",
  /** The repair lesson appended to lessons.jsonl, steps and the run record not yet. */
  "repair.lesson-appended",
  /** The user's task branch moved (compare-and-swap), the terminal verdict not recorded. */
  "commit.ref-moved",
  /** promotion_handoff.json written, the terminal verdict not recorded. */
  "handoff.written",
  /** A child process started and its group recorded, devflow not yet waiting on it. */
  "process.spawned",
  /** Compose (ADR 0055): a task's commit landed on the integration branch, plan_run.json not yet updated. */
  "compose.branch-moved",
  /** Compose: a task recorded landed in plan_run.json, the next task not started. */
  "compose.task-landed",
] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

const reached = new Map<string, number>();

/** SIGKILLs this process when `DEVFLOW_TEST_KILL_AT` names `point` and this is its n-th arrival. */
export function killPoint(point: KillPoint): void {
  const at = process.env[TEST_KILL_AT_ENV];
  if (!at) return;
  const [name = "", nth = "1"] = at.split("@");
  if (!(KILL_POINTS as readonly string[]).includes(name) || !/^[1-9]\d*$/.test(nth)) {
    throw new Error(
      `${TEST_KILL_AT_ENV}=${at} names no kill point: use <point>[@<n>] with one of ${KILL_POINTS.join(", ")}`,
    );
  }
  if (name !== point) return;
  const count = (reached.get(point) ?? 0) + 1;
  reached.set(point, count);
  if (count !== Number(nth)) return;
  // Said first, so a test can tell this kill from any other way the process ended.
  writeSync(2, `${KILL_NOTICE}${point}@${count}\n`);
  process.kill(process.pid, "SIGKILL");
}
