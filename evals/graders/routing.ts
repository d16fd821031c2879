import { check } from "../grade.js";
import type { Check, RoutedMessage } from "../types.js";

/**
 * Routing: the router sent the message to the expected lane, and explained itself (a rationale and
 * a confidence between 0 and 1), so a wrong route can be understood from the report.
 */
export function gradeRoute(routed: RoutedMessage[], id: string, criterion: string): Check[] {
  const message = routed.find((r) => r.id === id);
  if (!message) return [check(criterion, false, `the message "${id}" was never routed`)];
  const { decision, expectedRoute } = message;
  if (!decision) return [check(criterion, false, `the router failed: ${message.error ?? "no decision"}`)];
  return [
    check(
      criterion,
      decision.route === expectedRoute,
      `routed to ${decision.route}, expected ${expectedRoute} (rationale: ${decision.rationale})`,
    ),
    check(
      "route_explained",
      decision.rationale.trim().length > 0 && decision.confidence >= 0 && decision.confidence <= 1,
      `message "${id}": the decision needs a rationale and a confidence in [0, 1] (got ${JSON.stringify(decision.rationale)}, ${decision.confidence})`,
    ),
  ];
}
