import { check, checkProblems } from "../grade.js";
import type { Check, NodeStep, ScenarioRun } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/** The run itself did not crash (a crash is reported, and the rest is graded from what is on disk). */
export function gradeRunFinished(run: ScenarioRun): Check[] {
  return [check("run_finished", run.error === null, `the run failed: ${run.error}`)];
}

/** The task directory exists and every artifact in it loads and validates against its JSON Schema. */
export function gradeArtifactsValid(a: RunArtifacts): Check[] {
  return [
    checkProblems("artifacts_valid", [
      !a.dir && "the run left no task directory",
      a.dir && !a.run && "iterator_run.json is missing",
      ...a.problems,
    ]),
  ];
}

/** A subagent scenario ran exactly its agent's nodes (and, when given, went where it should next). */
export function gradeNodesRan(run: ScenarioRun, expected: NodeStep[]): Check[] {
  const got = run.steps.map((s) => `${s.node}→${s.goto ?? "(edge)"}`).join(", ");
  const want = expected.map((s) => `${s.node}→${s.goto ?? "(edge)"}`).join(", ");
  return [check("node_outcome", got === want, `nodes ran ${got || "(none)"}, expected ${want}`)];
}

/** The run finished and left valid artifacts: what every evaluator of a lane or node run starts from. */
export function gradeRunBasics(a: RunArtifacts, run: ScenarioRun): Check[] {
  return [...gradeRunFinished(run), ...gradeArtifactsValid(a)];
}
