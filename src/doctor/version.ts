/** The numeric release parts of a version ("2.39.5" → [2, 39, 5]); a pre-release tag is ignored. */
function releaseParts(version: string): number[] {
  const release = version.split(/[-+]/, 1)[0] ?? "";
  return release.split(".").map((part) => Number.parseInt(part, 10) || 0);
}

/** True when `version` is at least `minimum`, comparing release parts numerically ("2.30" ≤ "2.30.1"). */
export function atLeast(version: string, minimum: string): boolean {
  const have = releaseParts(version);
  const need = releaseParts(minimum);
  for (let i = 0; i < Math.max(have.length, need.length); i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
