import { isAbsolute, join } from "node:path";
import { artifactPathError } from "./errors.js";
import { ATTEMPT_ID } from "./schemas/index.js";

export function assertAttemptId(attemptId: string): string {
  if (!ATTEMPT_ID.test(attemptId)) {
    throw artifactPathError(
      `attempt id ${JSON.stringify(attemptId)} is malformed: expected attempt-NNN with at least 3 digits (use attemptId(n), e.g. attemptId(1) = "attempt-001")`,
    );
  }
  return attemptId;
}

/** Attempt number of a well-formed id, so attempts sort in execution order even past attempt-999. */
export const attemptNumber = (attemptId: string): number =>
  Number.parseInt(attemptId.slice("attempt-".length), 10);

/** Resolves a `/`-separated relative path under `root`, refusing anything that could leave it. */
export function resolveInside(root: string, relPath: string, what: string): string {
  const segments = relPath.split("/");
  const bad =
    relPath === "" ||
    isAbsolute(relPath) ||
    relPath.includes("\\") ||
    segments.some((s) => s === "" || s === "." || s === "..");
  if (bad) {
    throw artifactPathError(
      `${what} ${JSON.stringify(relPath)} must be a relative path inside ${root}, '/'-separated, without empty, '.' or '..' parts (e.g. "attempts/attempt-001/diff.patch")`,
    );
  }
  return join(root, ...segments);
}

/** `history/<name>.r<NNN>.json`: three digits so a plain `ls` lists revisions in order up to r999. */
export const historyFileName = (name: string, revision: number): string =>
  `${name}.r${String(revision).padStart(3, "0")}.json`;

export function historyRevisionOf(name: string, fileName: string): number | null {
  const prefix = `${name}.r`;
  if (!fileName.startsWith(prefix) || !fileName.endsWith(".json")) return null;
  const digits = fileName.slice(prefix.length, -".json".length);
  return /^\d{3,}$/.test(digits) ? Number.parseInt(digits, 10) : null;
}
