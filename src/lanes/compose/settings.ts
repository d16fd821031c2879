import type { IdeaBrief, IdeaTask, PlanReplan, PlanRun } from "../../artifacts/schemas/index.js";
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

/** The revised plan a re-plan's planning turn proposed (ComposeSettings.onRevision). */
export interface ReplanProposal {
  ask: ReplanAsk;
  /** The whole revised brief: the landed tasks first, then the revised tasks renumbered after them. */
  brief: IdeaBrief;
  /** The landed tasks as the brief lists them: an edit must keep them first and unchanged. */
  landed: IdeaTask[];
}

/** A task's part of the cassette dir that its replay left answers of (ComposeSettings.onUnusedAnswers). */
export interface UnusedAnswers {
  planTaskId: string;
  /** The part's file, `<cassetteDir>/T2.json` (or `r<n>-T<k>.json` after re-plan n). */
  cassette: string;
  /** Answers no call consumed, per role. */
  unused: Partial<Record<string, number>>;
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
   * Asked after an approved re-plan's planning turn, with the revised plan: the brief to run (the
   * proposal, or the user's edit of it: the lane checks the planner's rules and that the landed
   * tasks are unchanged), or null to decline it (the plan stops). Absent: the proposal runs.
   */
  onRevision?: (proposal: ReplanProposal) => Promise<IdeaBrief | null>;
  /**
   * Replay: called after a task's iterate run left answers of its own cassette part unconsumed (it
   * made fewer model calls than recorded, so the run diverged from the recording). The CLI warns,
   * as it does after an iterate replay; the playground fails the scenario (cassette_fully_replayed).
   */
  onUnusedAnswers?: (leftover: UnusedAnswers) => void;
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
