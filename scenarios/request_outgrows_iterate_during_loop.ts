import { defineScenario } from "./scenario.js";

export default defineScenario({
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
