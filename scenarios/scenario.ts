import type { z } from "zod";
import type {
  LaneOptions,
  ObservationFindings,
  ObservationStatus,
  ObservationVerdict,
  Route,
  RunState,
  TaskFraming,
  TaskType,
  Terminal,
  Turn,
} from "../src/index.js";

export type { Route, Turn };

/**
 * How the playground runs a scenario:
 * - `routing`: the intake router alone, for the request and each route probe;
 * - `arm`: one chat conversation through the intake graph (IntakeSession): routing, the iterate
 *   lane, and a reroute/promotion continuing into the insight/idea lane;
 * - `lane`: the iterate lane (`runIterate`) on the fixture repo;
 * - `framer` / `observer` / `coder`: that agent's node alone on a seeded task directory
 *   (coder: the readiness, code, verify and gate nodes: one coder run and its verifiers);
 * - `compose`: the idea planner plans the request, then the compose lane (`runCompose`) runs the
 *   plan task by task onto its integration branch, verifies and reviews it (ADR 0058).
 */
export type ScenarioKind = "routing" | "arm" | "lane" | "framer" | "observer" | "coder" | "compose";

/** Which design scenario list (docs/origins.md#03-scenarios) the scenario comes from (reports group by it). */
export type ScenarioGroup =
  | "arm"
  | "subagent"
  | "framing"
  | "observation"
  | "iterator_loop"
  | "coder_attempt"
  | "compose";

/** A further message for the router, with the route it must get. */
export interface RouteProbe {
  id: string;
  message: string;
  priorTurns: Turn[];
  expectedRoute: Route;
}

/** What a coder scenario starts from: the Observer's findings and the repro files it wrote. */
export interface SeededObservation {
  findings: z.input<typeof ObservationFindings>;
  /** Repo-relative path → content, written into the worktree before the seam is checked on base. */
  seamFiles: Record<string, string>;
}

export interface ScenarioInput {
  request: string;
  priorTurns: Turn[];
  /** The agent a subagent scenario exercises. */
  role?: "framer" | "observer" | "coder";
  /** A folder under scenarios/fixtures/, copied into a fresh git repo for every run. */
  fixture: string;
  /** A file under scenarios/coders/: the deterministic coder used with cassettes. */
  coder?: string;
  /** Answers to the lane's questions (needs_more_context, re-plan), in the order they are asked. */
  answers?: string[];
  /** Observer and coder scenarios: the framed task the agent receives. */
  task?: TaskFraming;
  /** Coder scenarios: the observation and its seam files. */
  observation?: SeededObservation;
  /** Routing scenarios: more messages to route besides the request. */
  routeProbes?: RouteProbe[];
  lane?: Partial<LaneOptions>;
}

/** The behaviour a scenario expects; evaluators grade a run against it. */
export interface ExpectedBehaviour {
  route?: Route;
  taskType?: z.infer<typeof TaskType>;
  recommendedNextStep?: TaskFraming["recommended_next_step"];
  /** Surface hints the framing must capture (each must appear in some hint). */
  surfaceHints?: string[];
  /** Allowed observation statuses (after devflow's own seam check). */
  observationStatus?: z.infer<typeof ObservationStatus>[];
  observationVerdict?: z.infer<typeof ObservationVerdict>;
  terminal?: Terminal["verdict"];
  /** Judge attempts the run should take. */
  attempts?: number;
  /** Compose scenarios: what plan_run.json must say (graded by evals/graders/plan-run.ts). */
  plan?: ExpectedPlan;
  /** States that must appear in iterator_run.state_history, in this order (others may sit between). */
  runStates?: RunState[];
  handoffTarget?: "idea" | "insight";
  /** Files the change may touch besides the seam files (exact repo-relative paths). */
  changeWithin?: string[];
  /** Words the framed task must carry over from the request or the prior turns (e.g. a value the user gave). */
  taskMentions?: string[];
  /** Words that must appear in the task's out_of_scope list (what the framer kept out). */
  outOfScope?: string[];
  /** Revision the task artifact must reach (re-framing). */
  taskRevision?: number;
  /** The design's checks (docs/origins.md#03-scenarios) this scenario stands for, in plain words. */
  checks: string[];
}

/** A compose scenario's plan outcome. */
export interface ExpectedPlan {
  /** plan_run.state at the end (its terminal verdict). */
  state: "completed" | "gave_up" | "stopped" | "unverified";
  gaveUp: boolean;
  /** Every task at the end, in order: [plan task id, status, judge attempts]. */
  tasks: [string, "landed" | "failed" | "skipped" | "pending" | "running", number][];
  /** Re-plans asked, and how many were approved. */
  replans: { asked: number; approved: number };
  /** Verify and Review: "pass", "fail", or null when they never ran. */
  verify: "pass" | "fail" | null;
  review: "pass" | "fail" | null;
}

export interface Scenario {
  name: string;
  description: string;
  kind: ScenarioKind;
  group: ScenarioGroup;
  input: ScenarioInput;
  expected: ExpectedBehaviour;
  /**
   * The file under scenarios/cassettes/ that answers every model call of a replayed run (compose:
   * a folder there with one cassette per part: idea.json, T1.json …, review.json, ADR 0058).
   * `--record` never overwrites it: it writes scenarios/cassettes/<name>.json.
   */
  cassette: string;
  /**
   * What the independent referee (evals/referee) checks besides the scenario's own seam: the
   * hidden acceptance test under scenarios/hidden/<hidden>/, which no agent, prompt, cassette or
   * fixture ever sees. Every scenario that can end `completed` names one.
   */
  referee?: RefereeDefinition;
}

/** The referee's part of a scenario definition (ADR 0027). */
export interface RefereeDefinition {
  /** A folder under scenarios/hidden/ holding `*.test.mjs` files run with `node --test`. */
  hidden: string;
}

/** Identity, so scenario files get the type checked where they are written. */
export function defineScenario(scenario: Scenario): Scenario {
  return scenario;
}
