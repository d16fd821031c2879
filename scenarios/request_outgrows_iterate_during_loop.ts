import { grade } from "../evals/grade.js";
import { gradeRevisedLane } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeStopsBeforeCoding } from "../evals/graders/supervision.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "request_outgrows_iterate_during_loop",
  description:
    "'Handle quoted fields' needs a question; the user's answer grows it into dialects, encodings and a preview UI. The re-framed task (r2) is observed and the lane promotes to idea, with the handoff citing task r2 and its observation.",
  kind: "lane",
  group: "iterator_loop",
  input: {
    request: "Make the CSV import handle quoted fields.",
    priorTurns: [],
    fixture: "csv-import",
    answers: [
      "All of it, really: Excel and Google Sheets exports, semicolon separators, multi-line cells, any encoding - and we want a preview screen with column mapping before anything is imported.",
    ],
  },
  expected: {
    observationVerdict: "promote_idea",
    terminal: "promoted",
    handoffTarget: "idea",
    taskRevision: 2,
    runStates: ["framing", "observing", "awaiting_readiness", "promoted"],
    checks: [
      "Iterator promotes or escalates instead of hiding broader planning inside iterate",
      "run record lands in promoted",
      "promotion is visible in the durable iterate record",
      "promotion_handoff.json points back to the exact task and observation revisions",
    ],
  },
  cassette: "request_outgrows_iterate_during_loop.json",
});

/** Grown by the user's answer, the re-framed task is promoted; the handoff cites task r2 and its observation. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeRevisedLane(a, run, e)), ...gradeStopsBeforeCoding(a)]);
};
