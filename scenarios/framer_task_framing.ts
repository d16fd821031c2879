import { grade } from "../evals/grade.js";
import { gradeFramerRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeTaskMentions } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "framer_task_framing",
  description:
    "A vague chat message ('that import thing... sort it out') plus the prior turns that hold the facts becomes a well-formed task_artifact: error_fix, hints, facts from the conversation, observable criteria, a bounded scope.",
  kind: "framer",
  group: "subagent",
  input: {
    request: "yeah so that import thing, it's still broken for some people, can you sort it out",
    priorTurns: [
      { role: "user", content: "Sales says the contact CSV import drops people." },
      { role: "assistant", content: "Which rows get dropped? Do you have an example?" },
      {
        role: "user",
        content:
          "Rows like 'Alice, alice@example.com ' - there's a space before and after the email. They come back as invalid email.",
      },
    ],
    role: "framer",
    fixture: "csv-import",
  },
  expected: {
    taskType: "error_fix",
    recommendedNextStep: "observe",
    surfaceHints: ["csv-import.js"],
    taskMentions: ["alice@example.com", "invalid email"],
    checks: [
      "turn messy conversational input into a bounded task artifact",
      "facts come from the prior turns, not invented",
      "write observable success criteria rather than vague aspirations",
    ],
  },
  cassette: "framer_task_framing.json",
});

/** Framer node alone: vague chat plus prior turns → a complete task artifact grounded in what the user said. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeFramerRun(a, run, e)), ...gradeTaskMentions(a, e)]);
};
