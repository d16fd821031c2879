import picomatch from "picomatch";
import type { TaskArtifact } from "../artifacts/schemas/task-artifact.js";
import type { ScopeEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import { DEVFLOW_DIR } from "../home/index.js";
import { nameList } from "../util/markdown.js";
import { startEnvelope } from "./envelope.js";

export interface ScopeVerifierInput {
  /** Repo-relative paths changed by the attempt (from git, never from the coder). */
  changedFiles: readonly string[];
  scope: TaskArtifact["scope_boundary"];
  /** The seam's own files are always allowed (the Observer created them; integrity guards edits). */
  seamFiles: readonly string[];
  attemptId: string;
  /** Files that differ from the base commit (from git); recorded without the seam's files, for the gate's empty-change rule. */
  changedSinceBase?: readonly string[];
}

/** devflow's own state: never part of the change, whatever git reports. */
const inDevflowDir = (file: string): boolean => file === DEVFLOW_DIR || file.startsWith(`${DEVFLOW_DIR}/`);

export function runScopeVerifier(input: ScopeVerifierInput): ScopeEnvelope {
  const env = startEnvelope("scope", input.attemptId);
  const patterns = input.scope.allowed_paths.map(normalizePath).filter((p) => p.length > 0);
  const changed = [...new Set(input.changedFiles.map(normalizePath))].filter((f) => f && !inDevflowDir(f));
  const seamSet = new Set(input.seamFiles.map(normalizePath));
  const sinceBase = input.changedSinceBase
    ? {
        changed_since_base: [...new Set(input.changedSinceBase.map(normalizePath))].filter(
          (f) => f && !inDevflowDir(f) && !seamSet.has(f),
        ),
      }
    : {};
  const payload = { allowed_paths: input.scope.allowed_paths, changed_files: changed, ...sinceBase };

  if (patterns.length === 0) {
    return env.finish({
      overall_result: "pass",
      green_condition_alignment: "not_applicable",
      summary: `scope is not restricted by path (allowed_paths is empty); ${changed.length} changed file(s) accepted`,
      evidence_refs: [],
      native_payload: { ...payload, out_of_scope: [], restricted: false },
    });
  }

  const allowed = picomatch(patterns.flatMap(expandDirectoryPattern), { dot: true });
  const seam = new Set(input.seamFiles.map(normalizePath));
  const outOfScope = changed.filter((f) => !seam.has(f) && !allowed(f));

  return env.finish({
    overall_result: outOfScope.length === 0 ? "pass" : "fail",
    green_condition_alignment: "not_applicable",
    summary:
      outOfScope.length === 0
        ? `all ${changed.length} changed file(s) are inside the scope boundary`
        : `${outOfScope.length} changed file(s) outside the scope boundary (${patterns.join(", ")}): ${nameList(outOfScope)}`,
    evidence_refs: [],
    native_payload: { ...payload, out_of_scope: outOfScope, restricted: true },
  });
}

function normalizePath(p: string): string {
  return p
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "");
}

/** "src/auth" and "src/auth/" mean the folder and everything in it, as a person writing a scope means. */
function expandDirectoryPattern(pattern: string): string[] {
  if (pattern.endsWith("/")) return [`${pattern}**`];
  if (pattern.endsWith("**")) return [pattern];
  return [pattern, `${pattern}/**`];
}
