import { evaluate as coder_artifact_alignment } from "./coder_artifact_alignment.js";
import { evaluate as coder_bounded_fix } from "./coder_bounded_fix.js";
import { evaluate as coder_near_miss_then_repair_success } from "./coder_near_miss_then_repair_success.js";
import { evaluate as devin_iterate_routing } from "./devin_iterate_routing.js";
import { evaluate as error_confirmed_by_logs } from "./error_confirmed_by_logs.js";
import { evaluate as first_pass_fails_but_report_is_honest } from "./first_pass_fails_but_report_is_honest.js";
import { evaluate as framer_scope_boundary } from "./framer_scope_boundary.js";
import { evaluate as framer_task_framing } from "./framer_task_framing.js";
import { evaluate as iterate_error_fix } from "./iterate_error_fix.js";
import { evaluate as iterate_quick_change } from "./iterate_quick_change.js";
import { evaluate as iterate_to_idea_promotion } from "./iterate_to_idea_promotion.js";
import { evaluate as iterate_to_insight_reroute } from "./iterate_to_insight_reroute.js";
import { evaluate as messy_error_report_with_partial_location } from "./messy_error_report_with_partial_location.js";
import { evaluate as missing_truth_blocks_safe_implementation } from "./missing_truth_blocks_safe_implementation.js";
import { evaluate as observer_evidence_seam } from "./observer_evidence_seam.js";
import { evaluate as observer_repro_creation } from "./observer_repro_creation.js";
import { evaluate as request_outgrows_iterate_during_loop } from "./request_outgrows_iterate_during_loop.js";
import { evaluate as reroute_to_insight_after_observation } from "./reroute_to_insight_after_observation.js";
import { evaluate as revised_task_before_coding } from "./revised_task_before_coding.js";
import { evaluate as scoped_fix_succeeds_first_pass } from "./scoped_fix_succeeds_first_pass.js";
import { evaluate as targeted_improvement_red_seam } from "./targeted_improvement_red_seam.js";
import { evaluate as tiny_copy_or_behavior_tweak } from "./tiny_copy_or_behavior_tweak.js";
import type { Evaluator } from "./types.js";
import { evaluate as underspecified_but_repairable_request } from "./underspecified_but_repairable_request.js";
import { evaluate as user_reported_error_not_confirmed } from "./user_reported_error_not_confirmed.js";

/** One evaluator per scenario, by scenario name. */
export const EVALUATORS: Readonly<Record<string, Evaluator>> = {
  devin_iterate_routing,
  iterate_error_fix,
  iterate_quick_change,
  iterate_to_insight_reroute,
  iterate_to_idea_promotion,
  framer_task_framing,
  framer_scope_boundary,
  observer_evidence_seam,
  observer_repro_creation,
  coder_bounded_fix,
  coder_artifact_alignment,
  messy_error_report_with_partial_location,
  tiny_copy_or_behavior_tweak,
  underspecified_but_repairable_request,
  error_confirmed_by_logs,
  user_reported_error_not_confirmed,
  targeted_improvement_red_seam,
  coder_near_miss_then_repair_success,
  missing_truth_blocks_safe_implementation,
  request_outgrows_iterate_during_loop,
  reroute_to_insight_after_observation,
  scoped_fix_succeeds_first_pass,
  first_pass_fails_but_report_is_honest,
  revised_task_before_coding,
};

/** The evaluator of a scenario, or an error saying which file to add. */
export function evaluatorFor(name: string): Evaluator {
  const evaluator = EVALUATORS[name];
  if (!evaluator)
    throw new Error(
      `scenario "${name}" has no evaluator: add evals/${name}.ts and list it in evals/index.ts`,
    );
  return evaluator;
}
