import { defineScenario } from "./scenario.js";

export default defineScenario({
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
});
