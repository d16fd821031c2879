import { join } from "node:path";
import type { ScenarioRun } from "../../evals/types.js";
import type { Scenario } from "../../scenarios/scenario.js";
import {
  createFixtureRepo,
  type IterateRunResult,
  type QuestionsInterrupt,
  runIterate,
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
  const onQuestions = async (q: QuestionsInterrupt): Promise<string> => {
    const answer = answers?.shift();
    if (answer === undefined) {
      throw new Error(
        `scenario ${scenario.name} has no answer left for the ${q.kind} question: ${q.questions.join(" / ")}`,
      );
    }
    return answer;
  };
  let result: IterateRunResult | null = null;
  let error: string | null = null;
  try {
    result = await runIterate({
      request: scenario.input.request,
      priorTurns: scenario.input.priorTurns,
      repo,
      baseDir: repo,
      taskId,
      resume: false,
      model: ctx.model,
      coder: ctx.coder,
      mode: ctx.gateway.mode,
      gateway: ctx.gateway,
      lane: { ...ctx.lane, ...scenario.input.lane },
      onProgress: (event) => ctx.onEvent?.(event),
      ...(answers ? { onQuestions } : {}),
    });
  } catch (e) {
    error = messageOf(e);
  }
  return {
    scenario: scenario.name,
    repo,
    taskDir: join(repo, ".devflow", "iterate", taskId),
    worktree: result?.worktree ?? taskWorktreePath(repo, taskId),
    routes: [],
    terminal: result?.terminal ?? null,
    steps: [],
    error,
  };
}
