import { grade } from "./grade.js";
import { gradeFramerRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeOutOfScope, gradeTaskScale } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

/** Framer node alone: the fix is framed, the floated rewrite is kept out of scope, and the task stays task-scale. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeFramerRun(a, run, e)), ...gradeOutOfScope(a, e), ...gradeTaskScale(a)]);
};
