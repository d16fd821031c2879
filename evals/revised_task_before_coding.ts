import { grade } from "./grade.js";
import { gradeRevisedLane } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import { gradeSpawnDiscipline } from "./graders/supervision.js";
import type { Evaluator } from "./types.js";

/** The task is amended in place (r2, r1 in history/) and readiness cites r2 before the coder runs. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeRevisedLane(a, run, e)), ...gradeSpawnDiscipline(a), ...gradeScope(a, e)]);
};
