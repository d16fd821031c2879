/**
 * The compose lane's bounds (names and numbers from seeds/02, ADR 0055). Each can be overridden per
 * run (`ComposeSettings.limits`); the ones in force are recorded in plan_run.json and every one that
 * is hit is named in the plan's report.
 */
export const COMPOSE_LIMITS = {
  /** Judge attempts per task: the iterate lane's `maxJudgeAttempts` for every task of a plan. */
  maxImplementAttempts: 3,
  /** Fewer tasks than this run as one iterate request, not as compose. */
  minTasksForCompose: 3,
  /** Approved re-plans of the remaining tasks after PLAN_INVALID; one more PLAN_INVALID gives up. */
  maxReplans: 2,
} as const;

export type ComposeLimits = { -readonly [K in keyof typeof COMPOSE_LIMITS]: number };
