import type { PlanReplan, PlanRun } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import type { LaneOptions } from "../iterate/lane/deps.js";
import type { ProgressSink } from "../iterate/lane/reporter.js";
import type { ComposeLimits } from "./limits.js";

/** What the user is asked when the plan is judged invalid (ComposeSettings.onReplan). */
export interface ReplanAsk {
  planId: string;
  source: PlanReplan["source"];
  /** The task whose critic judged the plan invalid; null for the review. */
  planTaskId: string | null;
  reason: string;
  /** This re-plan's number (1-based) and the bound. */
  replan: number;
  maxReplans: number;
  /** Landed tasks (kept) and the tasks a re-plan would drop. */
  landed: string[];
  dropped: string[];
}

/** How the compose lane runs its tasks (each through the iterate lane) and its review. */
export interface ComposeSettings {
  /** A local git repository (plans do not run on a URL). */
  repo: string;
  model: string;
  coder: string;
  mode: "live" | "replay" | "record";
  /**
   * Replay/record: the dir holding one cassette per part of the plan: `T1.json`, …, `review.json`;
   * after re-plan n, `replan-<n>.json` (its planning turn), `r<n>-T<k>.json` (its tasks) and
   * `review-r<n>.json`.
   */
  cassetteDir?: string;
  lane?: Partial<LaneOptions>;
  limits?: Partial<ComposeLimits>;
  /** Every iterate task's node events. */
  onProgress: ProgressSink;
  /** Called with plan_run.json after every write (the CLI's checklist). */
  onPlan?: (run: PlanRun) => void;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /**
   * Asked when a task's critic or the review judges the plan invalid: true re-plans the remaining
   * tasks. Absent (`--no-input`): declined, the plan stops.
   */
  onReplan?: (ask: ReplanAsk) => Promise<boolean>;
  /**
   * Asked when a task pauses with questions (needs_more_context): the answer resumes that task.
   * Absent (`--no-input`), or null/empty: the task ends needs_more_context and the plan stops.
   */
  onQuestions?: (ask: { planTaskId: string; questions: string[] }) => Promise<string | null>;
  /** Re-plan n's planning-turn gateway (tests); otherwise built from mode/model/cassetteDir. */
  replanGateway?: (replan: number) => Promise<ModelGateway>;
  /** The review's model gateway (tests, playground); otherwise built from mode/model/cassetteDir. */
  reviewGateway?: () => Promise<ModelGateway>;
}
