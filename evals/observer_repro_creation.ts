import { join } from "node:path";
import { FIXTURES_DIR } from "../src/fixtures/create-fixture-repo.js";
import { grade } from "./grade.js";
import { gradeReproIsNew } from "./graders/observation.js";
import { gradeObserverRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import type { Evaluator } from "./types.js";

/** Observer node alone: a new, narrow repro test, red on base, with an explicit green condition. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  return grade([
    ...gradeObserverRun(a, run, scenario.expected),
    ...gradeReproIsNew(a, run.worktree, join(FIXTURES_DIR, scenario.input.fixture)),
  ]);
};
