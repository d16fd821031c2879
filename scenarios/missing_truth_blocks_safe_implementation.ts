import { defineScenario } from "./scenario.js";

export default defineScenario({
  name: "missing_truth_blocks_safe_implementation",
  description:
    "Double invite e-mails are sent by a service that is not in the repository: the Observer says blocked, readiness records it, and the run ends blocked with a concrete reason and no coder.",
  kind: "lane",
  group: "iterator_loop",
  input: {
    request: "Invite emails are being sent twice to every new user in production. Fix it.",
    priorTurns: [],
    fixture: "invite-acceptance",
  },
  expected: {
    observationVerdict: "blocked",
    terminal: "blocked",
    runStates: ["framing", "observing", "awaiting_readiness", "blocked"],
    checks: [
      "Iterator does not spawn blindly",
      "readiness is recorded as not ready or blocked, not buried in attempt notes",
      "terminal state is blocked with a concrete reason",
    ],
  },
  cassette: "missing_truth_blocks_safe_implementation.json",
});
