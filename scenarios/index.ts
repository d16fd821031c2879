import coder_artifact_alignment from "./coder_artifact_alignment.js";
import coder_bounded_fix from "./coder_bounded_fix.js";
import coder_near_miss_then_repair_success from "./coder_near_miss_then_repair_success.js";
import devin_iterate_routing from "./devin_iterate_routing.js";
import error_confirmed_by_logs from "./error_confirmed_by_logs.js";
import first_pass_fails_but_report_is_honest from "./first_pass_fails_but_report_is_honest.js";
import framer_scope_boundary from "./framer_scope_boundary.js";
import framer_task_framing from "./framer_task_framing.js";
import iterate_error_fix from "./iterate_error_fix.js";
import iterate_quick_change from "./iterate_quick_change.js";
import iterate_to_idea_promotion from "./iterate_to_idea_promotion.js";
import iterate_to_insight_reroute from "./iterate_to_insight_reroute.js";
import messy_error_report_with_partial_location from "./messy_error_report_with_partial_location.js";
import missing_truth_blocks_safe_implementation from "./missing_truth_blocks_safe_implementation.js";
import observer_evidence_seam from "./observer_evidence_seam.js";
import observer_repro_creation from "./observer_repro_creation.js";
import request_outgrows_iterate_during_loop from "./request_outgrows_iterate_during_loop.js";
import reroute_to_insight_after_observation from "./reroute_to_insight_after_observation.js";
import revised_task_before_coding from "./revised_task_before_coding.js";
import type { Scenario } from "./scenario.js";
import scoped_fix_succeeds_first_pass from "./scoped_fix_succeeds_first_pass.js";
import targeted_improvement_red_seam from "./targeted_improvement_red_seam.js";
import tiny_copy_or_behavior_tweak from "./tiny_copy_or_behavior_tweak.js";
import underspecified_but_repairable_request from "./underspecified_but_repairable_request.js";
import user_reported_error_not_confirmed from "./user_reported_error_not_confirmed.js";

/**
 * Every scenario, in the order of seeds/03: the arm-level and subagent scenarios of its
 * scenarios/README.md, then the framing, observation, iterator-loop and coder-attempt scenarios of
 * artifact-and-loop-scenarios.md.
 */
export const SCENARIOS: readonly Scenario[] = [
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
];

/** The scenario with this name, or an error listing the known names. */
export function findScenario(name: string): Scenario {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) {
    throw new Error(
      `no scenario named "${name}"; known scenarios: ${SCENARIOS.map((s) => s.name).join(", ")}`,
    );
  }
  return found;
}
