import { join } from "node:path";
import { grade } from "../evals/grade.js";
import { gradeReproIsNew } from "../evals/graders/observation.js";
import { gradeObserverRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { FIXTURES_DIR } from "../src/index.js";
import { defineScenario } from "./scenario.js";
import { cartTotalObserverInput } from "./setups.js";

export const scenario = defineScenario({
  name: "observer_repro_creation",
  description:
    "No existing test shows the wrong cart total, so the Observer writes one narrow repro test, runs it red, and hands it over as the failing seam with an explicit green condition.",
  kind: "observer",
  group: "subagent",
  input: cartTotalObserverInput(),
  expected: {
    observationStatus: ["seam_created"],
    observationVerdict: "ready_for_coder",
    checks: [
      "Observer creates a narrow, reproducible repro",
      "the repro is a new test file, red on base",
      "expected green condition is explicit",
    ],
  },
  cassette: "observer_repro_creation.json",
});

/** Observer node alone: a new, narrow repro test, red on base, with an explicit green condition. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  return grade([
    ...gradeObserverRun(a, run, scenario.expected),
    ...gradeReproIsNew(a, run.worktree, join(FIXTURES_DIR, scenario.input.fixture)),
  ]);
};
