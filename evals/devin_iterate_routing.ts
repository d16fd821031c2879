import { grade } from "./grade.js";
import { gradeRoute } from "./graders/routing.js";
import type { Evaluator } from "./types.js";

/** Route evals 1-4 of seeds/03: each message lands in its lane, with a stated rationale. */
export const evaluate: Evaluator = async (_scenario, run) =>
  grade([
    ...gradeRoute(run.routes, "request", "routes_fix_to_iterate"),
    ...gradeRoute(run.routes, "investigation_only", "routes_investigation_to_insight"),
    ...gradeRoute(run.routes, "broad_feature", "routes_feature_to_idea"),
    ...gradeRoute(run.routes, "small_tweak", "keeps_small_in_iterate"),
  ]);
