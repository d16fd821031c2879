import { grade } from "../evals/grade.js";
import { gradeRoute } from "../evals/graders/routing.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "devin_iterate_routing",
  description:
    "The intake router sends a concrete fix request (with its conversation) to iterate, and keeps the other lanes apart: investigation-only goes to insight, broad feature planning to idea, and a small tweak stays in iterate instead of being inflated.",
  kind: "routing",
  group: "arm",
  input: {
    request:
      "ok so the CSV import thing again: it rejects ' alice@example.com ' as an invalid email. Please fix it so the spaces get trimmed.",
    priorTurns: [
      { role: "user", content: "We're getting complaints from the sales team about contact imports." },
      { role: "assistant", content: "What goes wrong when they import?" },
      { role: "user", content: "Some rows are rejected even though the emails look fine." },
    ],
    fixture: "csv-import",
    routeProbes: [
      {
        id: "investigation_only",
        message:
          "How does the CSV importer decide that an email is invalid? Just explain, don't change anything.",
        priorTurns: [],
        expectedRoute: "insight",
      },
      {
        id: "broad_feature",
        message:
          "We need a full contacts sync: import from Google and Outlook, dedupe across sources, and a review screen before anything is saved.",
        priorTurns: [],
        expectedRoute: "idea",
      },
      {
        id: "small_tweak",
        message: "Change the empty cart text to 'Your cart is empty'.",
        priorTurns: [],
        expectedRoute: "iterate",
      },
    ],
  },
  expected: {
    route: "iterate",
    checks: [
      "route a concrete fix request into iterate",
      "route an investigation-only request into insight",
      "promote a broader feature or workflow request into idea",
      "keep a small request in iterate instead of inflating it",
    ],
  },
  cassette: "devin_iterate_routing.json",
});

/** Route evals 1-4 (docs/origins.md#03-routing): each message lands in its lane, with a stated rationale. */
export const evaluate: Evaluator = async (_scenario, run) =>
  grade([
    ...gradeRoute(run.routes, "request", "routes_fix_to_iterate"),
    ...gradeRoute(run.routes, "investigation_only", "routes_investigation_to_insight"),
    ...gradeRoute(run.routes, "broad_feature", "routes_feature_to_idea"),
    ...gradeRoute(run.routes, "small_tweak", "keeps_small_in_iterate"),
  ]);
