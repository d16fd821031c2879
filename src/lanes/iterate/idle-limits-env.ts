import { maxIdleFromEnv } from "./lane/adopt-verification-checkout.js";
import { maxIdleCoderCheckouts } from "./tasks/finish-worktree.js";

/**
 * Reads every `DEVFLOW_MAX_IDLE_*` setting once, so a bad value is the command's one BAD_OPTION line
 * (exit 2) at its start, before any checkout is made. The lane reads them where it uses them: the
 * verification limit when a task starts, the coder checkout limit only when it ends, so a typo there
 * used to cost a whole run before it was reported.
 */
export function checkIdleLimitsEnv(env: NodeJS.ProcessEnv): void {
  maxIdleFromEnv(env);
  maxIdleCoderCheckouts(env);
}
