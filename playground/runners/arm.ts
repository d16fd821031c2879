import type { RoutedMessage, ScenarioRun } from "../../evals/types.js";
import type { Scenario } from "../../scenarios/scenario.js";
import {
  createFixtureRepo,
  type IntakeEvent,
  IntakeSession,
  type LaneResult,
  openTaskStore,
  type RouteRecord,
  taskDir,
  taskWorktreePath,
} from "../../src/index.js";
import type { RunContext } from "./context.js";
import { routeScenarioMessages } from "./routing.js";

/**
 * Routing scenarios ask the router alone (each probe would otherwise need a whole lane in its
 * cassette). Arm scenarios are one chat conversation through the intake graph (IntakeSession):
 * routing, the iterate lane, and a reroute or promotion continuing into the insight/idea lane,
 * all answered by the one cassette.
 */
export async function runArmScenario(scenario: Scenario, ctx: RunContext): Promise<ScenarioRun> {
  if (scenario.kind === "arm") return runConversation(scenario, ctx);
  const routes = await routeScenarioMessages(scenario, ctx);
  return {
    scenario: scenario.name,
    repo: null,
    taskDir: null,
    worktree: null,
    routes,
    terminal: null,
    steps: [],
    error: routes.find((r) => r.id === "request")?.error ?? null,
  };
}

/**
 * The scenario's user turns, then its request, then its answers (one per question the lane asks)
 * as messages of one thread. The chat has no way to inject history, so a prior user turn is sent
 * (and routed) like any message; the assistant turns of the thread are the lanes' own replies.
 * The thread is opened without a coder confirmation (as `devflow chat --yes`).
 */
async function runConversation(scenario: Scenario, ctx: RunContext): Promise<ScenarioRun> {
  const repo = createFixtureRepo(scenario.input.fixture);
  const events: IntakeEvent[] = [];
  const errors: string[] = [];
  const session = await IntakeSession.open({
    repo,
    gateway: ctx.gateway,
    // Kept: the graders read the task's checkout (seam files, evidence lines), like the iterate
    // runner's; the playground removes the whole fixture repo itself (chat removes it since ADR 0049).
    iterate: {
      coder: ctx.coder,
      model: ctx.model,
      lane: { ...ctx.lane, ...scenario.input.lane },
      keepWorktree: true,
    },
    emit: (event) => events.push(event),
  });
  let routes: RouteRecord[] = [];
  let results: LaneResult[] = [];
  try {
    const send = async (message: string): Promise<void> => {
      const from = events.length;
      if (await session.send(message, new AbortController().signal)) return;
      const said = events.slice(from).flatMap((e) => (e.type === "error" ? [e.message] : []));
      errors.push(said.join("; ") || `the turn "${message}" failed`);
    };
    for (const turn of scenario.input.priorTurns) if (turn.role === "user") await send(turn.content);
    await send(scenario.input.request);
    const answers = [...(scenario.input.answers ?? [])];
    for (
      let pending = await session.pendingQuestions();
      pending;
      pending = await session.pendingQuestions()
    ) {
      const answer = answers.shift();
      if (answer === undefined) {
        errors.push(
          `scenario ${scenario.name} has no answer left for the questions: ${pending.questions.join(" / ")}`,
        );
        break;
      }
      await send(answer);
    }
    routes = await session.routes();
    results = await session.results();
  } finally {
    session.close();
  }
  const taskId = results.find((r) => r.lane === "iterate")?.id ?? null;
  const run = taskId ? await openTaskStore(repo, taskId).read("iterator_run") : null;
  return {
    scenario: scenario.name,
    repo,
    taskDir: taskId ? taskDir(repo, taskId) : null,
    worktree: taskId ? taskWorktreePath(repo, taskId) : null,
    routes: routedMessages(scenario, routes, errors),
    terminal: run?.terminal ?? null,
    steps: [],
    error: errors.length ? errors.join("\n") : null,
  };
}

/** The thread's routes as graded messages: the request's is "request", earlier ones `prior-<n>`. */
function routedMessages(scenario: Scenario, routes: RouteRecord[], errors: string[]): RoutedMessage[] {
  const routed = routes.map(({ route, rationale, confidence, message }, i): RoutedMessage => {
    const request = message === scenario.input.request;
    return {
      id: request ? "request" : `prior-${i + 1}`,
      expectedRoute: request ? (scenario.expected.route ?? null) : null,
      decision: { route, rationale, confidence },
      error: null,
    };
  });
  if (routed.some((r) => r.id === "request")) return routed;
  return [
    ...routed,
    {
      id: "request",
      expectedRoute: scenario.expected.route ?? null,
      decision: null,
      error: errors.at(-1) ?? "the request was never routed",
    },
  ];
}
