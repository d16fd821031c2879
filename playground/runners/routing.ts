import type { RoutedMessage } from "../../evals/types.js";
import type { Scenario } from "../../scenarios/scenario.js";
import { routeMessage } from "../../src/index.js";
import type { RunContext } from "./context.js";

/**
 * The router on the scenario's request, then on each probe, one after the other: calls for one
 * role stay sequential so a cassette answers them in order. A failed call is recorded, not thrown.
 */
export async function routeScenarioMessages(scenario: Scenario, ctx: RunContext): Promise<RoutedMessage[]> {
  const messages = [
    {
      id: "request",
      message: scenario.input.request,
      priorTurns: scenario.input.priorTurns,
      expectedRoute: scenario.expected.route ?? null,
    },
    ...(scenario.input.routeProbes ?? []),
  ];
  const routed: RoutedMessage[] = [];
  for (const m of messages) {
    try {
      const decision = await routeMessage({
        gateway: ctx.gateway,
        message: m.message,
        priorTurns: m.priorTurns,
      });
      routed.push({ id: m.id, expectedRoute: m.expectedRoute, decision, error: null });
    } catch (error) {
      routed.push({ id: m.id, expectedRoute: m.expectedRoute, decision: null, error: messageOf(error) });
    }
  }
  return routed;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
