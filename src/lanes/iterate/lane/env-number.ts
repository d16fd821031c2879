import { DevflowError } from "../../../errors/index.js";

/**
 * A whole-number setting from the environment (`DEVFLOW_MAX_IDLE_*_CHECKOUTS` and the like), one
 * parser for all of them: unset or blank gives `fallback`; anything but plain digits within
 * [`min`, `max`] is a one-line BAD_OPTION naming the variable and the range it accepts (a typo must
 * not silently become the default, nor "1.5" or "1e3" a surprise).
 */
export function wholeNumberFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  range: { min?: number; max?: number } = {},
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const accepted = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new DevflowError(
      "BAD_OPTION",
      `${name} must be a whole number ${accepted} (got ${JSON.stringify(raw)})`,
    );
  }
  return n;
}
