import { grade } from "../evals/grade.js";
import { gradeRevisedLane } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeSpawnDiscipline } from "../evals/graders/supervision.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "revised_task_before_coding",
  description:
    "The first framing needs an example; the user's answer amends the same task (task_artifact r2, r1 kept in history/), and readiness cites task r2 and the observation made against it before the coder runs.",
  kind: "lane",
  group: "coder_attempt",
  input: {
    request: "The import rejects some emails that look fine.",
    priorTurns: [],
    fixture: "csv-import",
    coder: "trim-email-coder.mjs",
    answers: ["Emails with spaces around them, like ' alice@example.com ' - they should just be trimmed."],
  },
  expected: {
    terminal: "completed",
    taskRevision: 2,
    attempts: 1,
    changeWithin: ["src/csv-import.js"],
    checks: [
      "Framer amends the task without creating a second task root",
      "task_artifact.json revision increases monotonically",
      "Iterator readiness cites the exact task and observation revisions it relied on",
    ],
  },
  cassette: "revised_task_before_coding.json",
  referee: { hidden: "csv-trim-email" },
});

/** The task is amended in place (r2, r1 in history/) and readiness cites r2 before the coder runs. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeRevisedLane(a, run, e)), ...gradeSpawnDiscipline(a), ...gradeScope(a, e)]);
};
