import { grade } from "../evals/grade.js";
import { gradeObservedLane } from "../evals/graders/profiles.js";
import { gradeRoute } from "../evals/graders/routing.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeSpawnDiscipline } from "../evals/graders/supervision.js";
import { gradeTaskArtifact } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
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
  referee: { hidden: "csv-trim-email" },
});

/** Router → framed error_fix → red seam → one scoped attempt → completed on green evidence. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...gradeRoute(run.routes, "request", "routes_to_iterate"),
    ...(await gradeObservedLane(a, run, e)),
    ...gradeTaskArtifact(a, e),
    ...gradeSpawnDiscipline(a),
    ...gradeScope(a, e),
  ]);
};
