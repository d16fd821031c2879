import type { Route, Scenario } from "../scenarios/scenario.js";
import type { RouteDecision, Terminal } from "../src/index.js";

export type { RouteDecision };

export interface RoutedMessage {
  /** "request" for the scenario's request, else the probe id. */
  id: string;
  expectedRoute: Route | null;
  decision: RouteDecision | null;
  error: string | null;
}

/** One node a subagent scenario ran, and where that node sent the lane next. */
export interface NodeStep {
  node: string;
  goto: string | null;
}

/**
 * What the playground captured from one run. Evaluators take the facts from the artifacts on disk
 * (under `taskDir`); this only says where they are and what the run returned.
 */
export interface ScenarioRun {
  scenario: string;
  /** The fixture repo the run worked on (a temp dir); null when no repo was needed (routing). */
  repo: string | null;
  /** `<repo>/.devflow/iterate/<task_id>`, or null when the run never reached the lane. */
  taskDir: string | null;
  worktree: string | null;
  routes: RoutedMessage[];
  /** The lane's verdict as runIterate returned it (lane and arm scenarios). */
  terminal: Terminal | null;
  /** Subagent scenarios: the nodes that ran, in order. */
  steps: NodeStep[];
  /** Compose scenarios: the plan's dir (`<repo>/.devflow/idea/<plan id>`, holding plan_run.json). */
  planDir?: string | null;
  /** A run that threw: the message (the evaluator still grades whatever is on disk). */
  error: string | null;
}

export type CriterionResult = "pass" | "fail";

/** An evaluator's verdict: ok only when every criterion passed; notes say why one failed. */
export interface Evaluation {
  ok: boolean;
  notes: string[];
  criteria: Record<string, CriterionResult>;
}

/** One graded criterion. A grader returns several; the note explains a failure (or adds context). */
export interface Check {
  criterion: string;
  pass: boolean;
  note?: string;
}

export type Evaluator = (scenario: Scenario, run: ScenarioRun) => Promise<Evaluation>;
