import { grade } from "./grade.js";
import { gradeFramerRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeTaskMentions } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

/** Framer node alone: vague chat plus prior turns → a complete task artifact grounded in what the user said. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeFramerRun(a, run, e)), ...gradeTaskMentions(a, e)]);
};
