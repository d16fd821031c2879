import { DevflowError } from "../../../errors/index.js";
import { TEST_TIMEOUT_ENV } from "../../../verify/run-command.js";

/**
 * The limit of seam, regression and readiness runs from DEVFLOW_TEST_TIMEOUT (seconds), when set.
 * An explicit lane option (the --test-timeout flag, a caller's config) beats it; the default is
 * DEFAULT_LANE_OPTIONS.commandTimeoutMs.
 */
export function testTimeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env[TEST_TIMEOUT_ENV]?.trim();
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new DevflowError(
      "BAD_OPTION",
      `${TEST_TIMEOUT_ENV} must be a number of seconds > 0 (got ${JSON.stringify(raw)})`,
    );
  return Math.round(seconds * 1000);
}
