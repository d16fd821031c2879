import { grade } from "../evals/grade.js";
import { gradeStoppedLane } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeTerminalReason } from "../evals/graders/supervision.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
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

/** Missing truth: readiness records blocked, no coder is spawned, the terminal reason is concrete. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  return grade([...(await gradeStoppedLane(a, run, scenario.expected)), ...gradeTerminalReason(a)]);
};
