import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CASSETTES_DIR, SCENARIOS_DIR } from "../playground/run-scenario.js";
import { findScenario, SCENARIOS } from "../scenarios/index.js";
import { FIXTURES_DIR } from "../src/fixtures/create-fixture-repo.js";
import { loadCassette } from "../src/models/cassette.js";
import { EVALUATORS } from "./index.js";

/** seeds/03: scenarios/README.md's list, then the thirteen of artifact-and-loop-scenarios.md. */
const SEEDS_03 = [
  "devin_iterate_routing",
  "iterate_error_fix",
  "iterate_quick_change",
  "iterate_to_insight_reroute",
  "iterate_to_idea_promotion",
  "framer_task_framing",
  "framer_scope_boundary",
  "observer_evidence_seam",
  "observer_repro_creation",
  "coder_bounded_fix",
  "coder_artifact_alignment",
  "messy_error_report_with_partial_location",
  "tiny_copy_or_behavior_tweak",
  "underspecified_but_repairable_request",
  "error_confirmed_by_logs",
  "user_reported_error_not_confirmed",
  "targeted_improvement_red_seam",
  "coder_near_miss_then_repair_success",
  "missing_truth_blocks_safe_implementation",
  "request_outgrows_iterate_during_loop",
  "reroute_to_insight_after_observation",
  "scoped_fix_succeeds_first_pass",
  "first_pass_fails_but_report_is_honest",
  "revised_task_before_coding",
];

describe("the scenario suite", () => {
  it("holds every seeds/03 scenario exactly once, each in its own file named after it", () => {
    expect(SCENARIOS.map((s) => s.name).sort()).toEqual([...SEEDS_03].sort());
    const files = readdirSync(SCENARIOS_DIR).filter(
      (f) => /^[a-z_]+\.ts$/.test(f) && f !== "scenario.ts" && f !== "index.ts",
    );
    expect(files.map((f) => f.replace(/\.ts$/, "")).sort()).toEqual([...SEEDS_03].sort());
  });

  it.each(SCENARIOS.map((s) => [s.name, s] as const))(
    "%s is runnable: cassette, fixture, coder, evaluator",
    (name, s) => {
      expect(() => loadCassette(join(CASSETTES_DIR, s.cassette))).not.toThrow();
      expect(existsSync(join(FIXTURES_DIR, s.input.fixture, "package.json"))).toBe(true);
      if (s.input.coder) expect(existsSync(join(SCENARIOS_DIR, "coders", s.input.coder))).toBe(true);
      expect(EVALUATORS[name]).toBeTypeOf("function");
      if (s.kind === "framer" || s.kind === "observer" || s.kind === "coder")
        expect(s.input.role).toBe(s.kind);
      if (s.kind === "observer" || s.kind === "coder") expect(s.input.task).toBeDefined();
      if (s.kind === "coder") expect(s.input.observation).toBeDefined();
      expect(s.expected.checks.length).toBeGreaterThan(0);
    },
  );

  it("an unknown scenario name is refused with the list of known names", () => {
    expect(() => findScenario("iterate_eror_fix")).toThrow(
      /no scenario named "iterate_eror_fix"; known scenarios: devin_iterate_routing, /,
    );
  });
});
