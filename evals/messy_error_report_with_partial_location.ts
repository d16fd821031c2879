import { grade } from "./grade.js";
import { gradeFramerRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeTaskMentions } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

/** Framer node alone: a messy report naming a function but no file → error_fix with its partial hints, facts apart from assumptions. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeFramerRun(a, run, e)), ...gradeTaskMentions(a, e)]);
};
