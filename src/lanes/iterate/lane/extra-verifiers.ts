import { ExtraVerifier } from "../../../artifacts/schemas/index.js";
import { DevflowError } from "../../../errors/index.js";
import { DEFAULT_LANE_OPTIONS } from "./deps.js";

/**
 * A task's extra verifiers as the lane takes them (ADR 0056): each one well formed, at most `max`
 * of them (LaneOptions.maxExtraVerifiers), refused before any model call otherwise, so a task never
 * starts with a check it would then silently drop.
 */
export function checkedExtraVerifiers(
  given: readonly ExtraVerifier[] | undefined,
  max: number = DEFAULT_LANE_OPTIONS.maxExtraVerifiers,
): ExtraVerifier[] {
  const verifiers = [...(given ?? [])];
  if (verifiers.length > max)
    throw new DevflowError(
      "EXTRA_VERIFIERS_LIMIT",
      `${verifiers.length} extra verifiers given, more than the limit of ${max}: merge scripts or raise the limit (lane option maxExtraVerifiers; the daemon's worker.maxVerificationBlocks)`,
    );
  const names = new Set<string>();
  for (const [index, verifier] of verifiers.entries()) {
    const parsed = ExtraVerifier.safeParse(verifier);
    if (!parsed.success)
      throw new DevflowError(
        "EXTRA_VERIFIER_INVALID",
        `extra verifier ${index + 1} is not {name, script} with both non-empty: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
    if (names.has(verifier.name))
      throw new DevflowError(
        "EXTRA_VERIFIER_INVALID",
        `two extra verifiers are named "${verifier.name}": give each its own name`,
      );
    names.add(verifier.name);
  }
  return verifiers;
}
