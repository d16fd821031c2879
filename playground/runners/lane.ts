import type { ScenarioRun } from "../../evals/types.js";
import type { Scenario } from "../../scenarios/scenario.js";
import {
  answerLane,
  createFixtureRepo,
  type IterateResult,
  iterateLane,
  type NeedsAnswers,
  taskDir,
  taskWorktreePath,
} from "../../src/index.js";
import type { RunContext } from "./context.js";
import { messageOf } from "./routing.js";

/**
 * The whole iterate lane through its public entry, runIterate, on a fresh copy of the fixture.
 * The task id is the scenario name. Scenarios that list answers run interactively: each question
 * (needs_more_context, re-plan) takes the next answer, and running out of answers is an error.
 */
export async function runLaneScenario(scenario: Scenario, ctx: RunContext): Promise<ScenarioRun> {
  const repo = createFixtureRepo(scenario.input.fixture);
  const taskId = scenario.name;
  const answers = scenario.input.answers ? [...scenario.input.answers] : null;
  const onQuestions = async (q: NeedsAnswers): Promise<string> => {
    const answer = answers?.shift();
    if (answer === undefined) {
      throw new Error(
        `scenario ${scenario.name} has no answer left for the ${q.asks} question: ${q.questions.join(" / ")}`,
      );
    }
    return answer;
  };
  let result: IterateResult | null = null;
  let error: string | null = null;
  try {
    const lane = iterateLane({
      repo,
      baseDir: repo,
      model: ctx.model,
      coder: ctx.coder,
      mode: ctx.gateway.mode,
      gateway: ctx.gateway,
      lane: { ...ctx.lane, ...scenario.input.lane },
      onProgress: (event) => ctx.onEvent?.(event),
      interactive: answers !== null,
    });
    const first = await lane.run({
      request: scenario.input.request,
      priorTurns: scenario.input.priorTurns,
      taskId,
      resume: false,
    });
    const outcome = await answerLane(first, onQuestions, lane.resume);
    if (outcome.kind !== "needs_answers") result = outcome.result;
  } catch (e) {
    error = messageOf(e);
  }
  return {
    scenario: scenario.name,
    repo,
    taskDir: taskDir(repo, taskId),
    worktree: result?.worktree ?? taskWorktreePath(repo, taskId),
    routes: [],
    terminal: result?.terminal ?? null,
    steps: [],
    error,
  };
}
