/**
 * The crash suite's chains through the nodes a completing task never reaches (ADR 0033, issue 10):
 * `ask` (a non-interactive needs_more_context, and an interactive one answered on a terminal),
 * `replan` (plan_invalid approved on a terminal) and `handoff` (a promotion to idea). Each chain is
 * one task SIGKILLed by the test hook at each of its points, each point at least twice, then
 * resumed to the end; it must end like an uninterrupted run of the same scenario: verdict and
 * reason, attempts, committed tree, lessons, and the stop's substance (questions, the run's states
 * in order, the task's revision, the promotion handoff and the revisions it cites); nothing left.
 * Together with kill-at-every-point.test.ts every node of the lane (src/lanes/iterate/iterate-lane.ts)
 * is killed at its `:end` at least twice.
 *
 * Bug it pins, "a crash after the handoff was written wrote it again": handoff re-ran from its first
 * line, wrote promotion_handoff r2 and, after a crash past terminate(), a second terminal revision
 * of iterator_run that r2 then cited. Fix: handoff keeps an identical earlier handoff and cites the
 * run record that already holds its verdict; terminate() keeps an identical recorded terminal.
 */
import { describe, expect, it } from "vitest";
import type { Cassette } from "../../src/models/cassette.js";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import {
  CORRECT_FIX,
  needsAnswersCassette,
  planInvalidCassette,
  withObserverAnswer,
} from "../support/lane-harness.js";
import { leftoverProcesses } from "../support/leftover-processes.js";
import {
  crashRepo,
  devflow,
  leftoverCheckouts,
  readAllArtifacts,
  stopOf,
  verdictOf,
} from "./crash-harness.js";

interface Scenario {
  cassette: () => Cassette;
  interactive: boolean;
  /** The CLI's exit code of the uninterrupted run and of the last resumed process. */
  exit: number;
  verdict: string;
  points: string[];
}

const twice = (points: string[]) => points.flatMap((p) => [p, p]);

const SCENARIOS: Record<string, Scenario> = {
  // --yes: ask records needs_more_context with the Framer's question and ends the run.
  ask: {
    cassette: () => needsAnswersCassette("Which field has the spaces: the email or the name?"),
    interactive: false,
    exit: 3,
    verdict: "needs_more_context",
    points: twice(["ask:end"]),
  },
  // On a terminal: ask pauses, the answer re-frames (task r2) and the task completes. The crash
  // after the answer loses it (it is not checkpointed): the resumed run asks again.
  answers: {
    cassette: () => needsAnswersCassette("Which field has the spaces: the email or the name?"),
    interactive: true,
    exit: 0,
    verdict: "completed",
    points: twice(["ask:end"]),
  },
  // On a terminal: the critic's plan_invalid asks to re-plan, the answer re-frames, attempt 2 completes.
  replan: {
    cassette: planInvalidCassette,
    interactive: true,
    exit: 0,
    verdict: "completed",
    points: twice(["replan:end"]),
  },
  // The Observer promotes the request to idea: promotion_handoff.json, then the terminal verdict.
  handoff: {
    cassette: () =>
      withObserverAnswer({ verdict: "promote_idea", summary: "This is a new import pipeline, not a fix." }),
    interactive: false,
    exit: 5,
    verdict: "promoted",
    points: twice(["handoff.written", "handoff:end"]),
  },
};

const slot = concurrencyLimit(4);

async function runScenario(s: Scenario, points: string[]) {
  const run = crashRepo([], CORRECT_FIX, s.cassette(), s.interactive);
  for (const [i, point] of points.entries()) {
    const exit = await devflow(run, { resume: i > 0, killAt: point });
    expect(exit.killedAt, `crash ${i + 1} (${point}) did not happen:\n${exit.stderr}`).toBe(`${point}@1`);
    await readAllArtifacts(run);
  }
  const last = await devflow(run, { resume: points.length > 0 });
  expect(last.code, last.stderr).toBe(s.exit);
  await readAllArtifacts(run);
  return { run, verdict: await verdictOf(run), stop: await stopOf(run) };
}

describe("SIGKILL in ask, replan and handoff, then --resume", () => {
  const only = process.env.DEVFLOW_CRASH_CHAINS?.split(",");
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    if (only && !only.includes(name)) continue;
    const baseline = slot(() => runScenario(scenario, []));
    const chain = slot(() => runScenario(scenario, scenario.points));
    for (const p of [baseline, chain]) p.catch(() => undefined);

    it(`chain "${name}": the same ${scenario.verdict} as an uninterrupted run, nothing leaked`, async () => {
      const expected = await baseline;
      expect(expected.verdict.verdict).toBe(scenario.verdict);
      const { run, verdict, stop } = await chain;
      expect(verdict).toEqual(expected.verdict);
      expect(stop).toEqual(expected.stop);
      expect(leftoverCheckouts(run)).toEqual([]);
      expect(leftoverProcesses(run.root, { marker: false })).toEqual([]);
    }, 900_000);
  }
});
