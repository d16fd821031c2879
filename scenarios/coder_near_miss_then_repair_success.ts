import { DEMO_REQUEST } from "../src/cli/commands/demo.js";
import { defineScenario } from "./scenario.js";

export default defineScenario({
  name: "coder_near_miss_then_repair_success",
  description:
    "The demo run: the coder's first attempt is a near miss that claims success; the Iterator rejects it from the red seam, respawns with an explicit reason and lessons, and attempt-002 converges on the green condition.",
  kind: "lane",
  group: "iterator_loop",
  input: {
    request: DEMO_REQUEST,
    priorTurns: [],
    fixture: "csv-import",
    coder: "near-miss-coder.mjs",
  },
  expected: {
    terminal: "completed",
    attempts: 2,
    runStates: [
      "ready_for_coder",
      "coding",
      "verifying",
      "needs_respawn",
      "coding",
      "verifying",
      "completed",
    ],
    changeWithin: ["src/csv-import.js"],
    checks: [
      "Iterator rejects premature success",
      "respawn reason is explicit",
      "first attempt stores its summary in iterator_run and normalized verifier artifacts under attempts/<attempt_id>/",
      "first attempt uses attempt-001, second uses attempt-002",
      "second attempt converges on the scoped green condition",
      "run_state moves through needs_respawn to completed",
    ],
  },
  cassette: "demo.json",
});
