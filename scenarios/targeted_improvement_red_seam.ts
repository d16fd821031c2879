import { defineScenario } from "./scenario.js";

export default defineScenario({
  name: "targeted_improvement_red_seam",
  description:
    "A targeted improvement (reject duplicate emails) gets one bounded failing seam with an explicit green condition; the attempt's verifier envelopes state green_condition_alignment against that one seam.",
  kind: "lane",
  group: "observation",
  input: {
    request:
      "Within one import, a repeated email should be rejected with 'duplicate email' instead of importing the contact twice.",
    priorTurns: [],
    fixture: "csv-import",
    coder: "dedupe-email-coder.mjs",
  },
  expected: {
    taskType: "targeted_improvement",
    observationStatus: ["seam_created"],
    observationVerdict: "ready_for_coder",
    terminal: "completed",
    attempts: 1,
    changeWithin: ["src/csv-import.js"],
    checks: [
      "Observer creates a bounded failing seam",
      "expected green condition is explicit",
      "seam remains narrow enough for attempt-scoped verifier artifacts",
      "verifier records state green_condition_alignment against one explicit seam",
    ],
  },
  cassette: "targeted_improvement_red_seam.json",
});
