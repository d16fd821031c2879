/**
 * How a path of the task's scope is spelled, for the verifiers that compare paths with it: one
 * owner, so "the scope names this file exactly" means the same to regression and to the seam.
 * (The scope verifier's globs read the same spelling.)
 */

/** A path as the scope and git compare it: trimmed, "/"-separated, without leading "./". */
export function scopePath(p: string): string {
  return p
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "");
}

/** `files` (as scope paths) that `allowedPaths` does not name exactly; a glob or a folder names nothing here. */
export function notNamedByScope(files: readonly string[], allowedPaths: readonly string[]): string[] {
  const named = new Set(allowedPaths.map(scopePath));
  return files.map(scopePath).filter((file) => !named.has(file));
}
