export { type LoopGuardOptions, loopGuardMiddleware } from "./middleware.js";
export { OutputBudgetGuard } from "./output-budget.js";
export { RepeatedOutputGuard, repeatsWithin } from "./repeated-output.js";
export { callKey, RepeatedToolCallGuard, repeatedCallThreshold } from "./repeated-tool-call.js";
export { GuardSupervisor } from "./supervisor.js";
export * from "./thresholds.js";
export { isToolFailure, ToolErrorStreakGuard, type ToolOutcome } from "./tool-error-streak.js";
export type { GuardDecision, GuardKind, GuardTrip } from "./types.js";
export { LoopWatch } from "./watch.js";
