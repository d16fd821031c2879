import { grade } from "../evals/grade.js";
import { gradeFramerRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeOutOfScope, gradeTaskScale } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "framer_scope_boundary",
  description:
    "A fix request that also floats 'redo the whole parser' is framed as the bounded fix only: the rewrite is named out of scope, the allowed paths stay narrow, the criteria stay few.",
  kind: "framer",
  group: "subagent",
  input: {
    request:
      "The CSV import rejects emails with spaces around them. Fix that - and honestly the whole importer is a mess, maybe redo the parser too while you're in there?",
    priorTurns: [],
    role: "framer",
    fixture: "csv-import",
  },
  expected: {
    taskType: "error_fix",
    recommendedNextStep: "observe",
    outOfScope: ["parser"],
    checks: [
      "Framer keeps scope small",
      "no inflation into broader planning",
      "the optional rewrite is recorded as out of scope",
    ],
  },
  cassette: "framer_scope_boundary.json",
});

/** Framer node alone: the fix is framed, the floated rewrite is kept out of scope, and the task stays task-scale. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeFramerRun(a, run, e)), ...gradeOutOfScope(a, e), ...gradeTaskScale(a)]);
};
