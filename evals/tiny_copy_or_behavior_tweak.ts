import { grade } from "./grade.js";
import { gradeFramerRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeTaskMentions, gradeTaskScale } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

/** Framer node alone: a one-word tweak → quick_change, one observable criterion, one file: no inflation. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeFramerRun(a, run, e)),
    ...gradeTaskMentions(a, e),
    ...gradeTaskScale(a, { criteria: 2, paths: 1 }),
  ]);
};
