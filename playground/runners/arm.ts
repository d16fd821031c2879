import type { ScenarioRun } from "../../evals/types.js";
import type { Scenario } from "../../scenarios/scenario.js";
import type { RunContext } from "./context.js";
import { runLaneScenario } from "./lane.js";
import { routeScenarioMessages } from "./routing.js";

/**
 * Arm level: the intake router decides first; only a message routed to `iterate` enters the lane,
 * with the same gateway (one cassette answers router and lane). Routing scenarios stop after the
 * router.
 */
export async function runArmScenario(scenario: Scenario, ctx: RunContext): Promise<ScenarioRun> {
  const routes = await routeScenarioMessages(scenario, ctx);
  const request = routes.find((r) => r.id === "request");
  if (scenario.kind === "arm" && request?.decision?.route === "iterate") {
    return { ...(await runLaneScenario(scenario, ctx)), routes };
  }
  return {
    scenario: scenario.name,
    repo: null,
    taskDir: null,
    worktree: null,
    routes,
    terminal: null,
    steps: [],
    error: request?.error ?? null,
  };
}
