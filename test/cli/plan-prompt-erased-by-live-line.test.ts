/**
 * Regression: a plan's prompts were wiped off the terminal by the live progress line.
 *
 * Cause: during a run the `replan` node is running while the user is asked whether to re-plan and
 * to approve or edit the revision; the live line (log-update) redraws every 200 ms and each frame
 * erases the lines it believes are its own, which by then were the prompt's context, the question
 * and "The edited plan is not valid: …". A CI run of `plan-replan-edit-prompt.test.ts` failed on
 * the missing line (stop 22); on a person's terminal the question vanished while it was asked.
 * Fix: `runPrompts` takes the live line down (`HumanProgress.pause`) before a prompt prints
 * anything; the next event brings it back.
 *
 * Real parts: the CLI's own human progress with a live line, what it writes read back through a
 * terminal screen model, and real timers (the prompter answers after several redraws).
 */

import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type { IdeaBrief } from "../../src/artifacts/schemas/index.js";
import { humanProgress } from "../../src/cli/human-progress.js";
import type { CliIO } from "../../src/cli/io.js";
import type { PlanPrompter } from "../../src/cli/plan-approval.js";
import { runPrompts } from "../../src/cli/plan-run.js";
import type { ReplanAsk } from "../../src/lanes/compose/settings.js";
import type { NodeReport } from "../../src/lanes/iterate/lane/reporter.js";
import { screenOf } from "../support/screen.js";

const started = (node: string): NodeReport => ({
  node,
  phase: "start",
  ok: true,
  outcome: null,
  durationMs: null,
  runState: null,
  attemptId: "attempt-001",
  tokens: 0,
  costUsd: 0,
  detail: {},
});

const ask: ReplanAsk = {
  planId: "p1",
  source: "task",
  planTaskId: "T3",
  reason: "comment lines come in two styles",
  replan: 1,
  maxReplans: 2,
  landed: ["T1", "T2"],
  dropped: ["T3"],
};

/** A live progress display on a fake terminal, with `replan` running, and what it has shown. */
function liveReplan() {
  let written = "";
  const io: CliIO = {
    out: () => {},
    err: (t) => (written += t),
    isTTY: true,
    errColumns: () => 120,
    setExitCode: () => {},
  };
  const progress = humanProgress(io, {
    colour: false,
    verbosity: "normal",
    live: true,
    heartbeatMs: 0,
    width: 120,
  });
  progress.sink({} as never, started("replan"));
  return { io, progress, screen: () => screenOf(written).join("\n") };
}

/** Answers `answer` after `waitMs` (several redraws of the live line), printing the question as readline does. */
const slowPrompter = (io: CliIO, answer: string, waitMs: number): PlanPrompter => ({
  ask: async (question) => {
    io.err(question);
    await sleep(waitMs);
    io.err(`${answer}\n`);
    return answer;
  },
  handOver: (run) => run(),
});

it("the re-plan question and its context stay on the screen while the live line is running", async () => {
  const { io, progress, screen } = liveReplan();
  try {
    const prompts = runPrompts(io, slowPrompter(io, "n", 700), progress);
    expect(await prompts.onReplan?.(ask)).toBe(false);
    await sleep(450); // frames that would come after the answer must not erase it either
    expect(screen()).toMatch(/T3's critic judged plan p1's assumptions wrong:/);
    expect(screen()).toMatch(/comment lines come in two styles/);
    expect(screen()).toMatch(/Re-plan the remaining tasks \(re-plan 1 of 2\)\? \[y\/N\] n/);
  } finally {
    progress.close();
  }
});

it("a revision's proposal and its approval question stay on the screen", async () => {
  const { io, progress, screen } = liveReplan();
  const brief = {
    id: "p1",
    title: "Plan",
    problem: "p",
    tasks: [{ id: "T1", title: "Landed", request: "r", depends_on: [] }],
  } as unknown as IdeaBrief;
  try {
    const prompts = runPrompts(io, slowPrompter(io, "n", 700), progress);
    const out = await prompts.onRevision?.({ ask, brief, landed: [] });
    expect(out).toBeNull();
    await sleep(450);
    expect(screen()).toMatch(/Re-plan 1 proposes \(landed: none\):/);
    expect(screen()).toMatch(/Run the revised plan\? \[y\]es, \[e\]dit, \[N\]o: n/);
  } finally {
    progress.close();
  }
});
