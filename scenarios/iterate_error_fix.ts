import { defineScenario } from "./scenario.js";

export default defineScenario({
  name: "iterate_error_fix",
  description:
    "A reproducible error reported in chat is routed to iterate, framed as an error_fix, confirmed with a red repro test, fixed by the coder on the first attempt and completed only after devflow re-ran the seam and the suite.",
  kind: "arm",
  group: "arm",
  input: {
    request:
      "The CSV import rejects emails that have spaces around them, like ' alice@example.com '. Please fix it: they should be trimmed and imported.",
    priorTurns: [{ role: "user", content: "Sales can't import their contact list since yesterday." }],
    fixture: "csv-import",
    coder: "trim-email-coder.mjs",
  },
  expected: {
    route: "iterate",
    taskType: "error_fix",
    observationStatus: ["seam_created", "confirmed"],
    observationVerdict: "ready_for_coder",
    terminal: "completed",
    attempts: 1,
    runStates: ["framing", "observing", "ready_for_coder", "coding", "verifying", "completed"],
    changeWithin: ["src/csv-import.js"],
    checks: [
      "route a concrete fix request into iterate",
      "framed as error_fix with observable success criteria",
      "the error is reproduced by a red seam before any coding",
      "completion only with the seam green and no regression",
    ],
  },
  cassette: "iterate_error_fix.json",
});
