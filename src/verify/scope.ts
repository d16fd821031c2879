import picomatch from "picomatch";
import type { TaskArtifact } from "../artifacts/schemas/task-artifact.js";
import type { ScopeEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import { nameList } from "../util/markdown.js";
import { startEnvelope } from "./envelope.js";
import { scopePath } from "./scope-paths.js";

export interface ScopeVerifierInput {
  /** Repo-relative paths changed by the attempt (from git, never from the coder). */
  changedFiles: readonly string[];
  scope: TaskArtifact["scope_boundary"];
  /** The seam's own files are always allowed (the Observer created them; integrity guards edits). */
  seamFiles: readonly string[];
  attemptId: string;
  /** Files that differ from the base commit (from git); recorded without the seam's files, for the gate's empty-change rule. */
  changedSinceBase?: readonly string[];
  /**
   * What the snapshot could not vouch for (ADR 0024): ignored files the coder left that the
   * snapshot does not hold, symlinks leaving the repository. Each fails the attempt by name.
   */
  snapshotFindings?: readonly string[];
}

export function runScopeVerifier(input: ScopeVerifierInput): ScopeEnvelope {
  const env = startEnvelope("scope", input.attemptId);
  const patterns = input.scope.allowed_paths.map(scopePath).filter((p) => p.length > 0);
  // A `.devflow/` folder in the change is judged like any other path (devflow's own home is never
  // in a snapshot: ADR 0024).
  const changed = [...new Set(input.changedFiles.map(scopePath))].filter((f) => f);
  const seamSet = new Set(input.seamFiles.map(scopePath));
  const sinceBase = input.changedSinceBase
    ? {
        changed_since_base: [...new Set(input.changedSinceBase.map(scopePath))].filter(
          (f) => f && !seamSet.has(f),
        ),
      }
    : {};
  const findings = [
    ...(input.snapshotFindings ?? []),
    ...changed.filter(isShadowingBinary).map((f) => `${f} (${SHADOWING_BINARY})`),
  ];
  const payload = {
    allowed_paths: input.scope.allowed_paths,
    changed_files: changed,
    ...sinceBase,
    ...(findings.length ? { snapshot_findings: findings } : {}),
  };
  const snapshotFailure = findings.length
    ? `the change cannot be committed as verified: ${nameList(findings)}`
    : null;

  if (patterns.length === 0) {
    if (snapshotFailure)
      return env.finish({
        overall_result: "fail",
        green_condition_alignment: "not_applicable",
        summary: snapshotFailure,
        evidence_refs: [],
        native_payload: { ...payload, out_of_scope: [], restricted: false },
      });
    return env.finish({
      overall_result: "pass",
      green_condition_alignment: "not_applicable",
      summary: `scope is not restricted by path (allowed_paths is empty); ${changed.length} changed file(s) accepted`,
      evidence_refs: [],
      native_payload: { ...payload, out_of_scope: [], restricted: false },
    });
  }

  const allowed = picomatch(patterns.flatMap(expandDirectoryPattern), { dot: true });
  const seam = new Set(input.seamFiles.map(scopePath));
  const outOfScope = changed.filter((f) => !seam.has(f) && !allowed(f));

  const scopeSummary =
    outOfScope.length === 0
      ? `all ${changed.length} changed file(s) are inside the scope boundary`
      : `${outOfScope.length} changed file(s) outside the scope boundary (${patterns.join(", ")}): ${nameList(outOfScope)}`;
  return env.finish({
    overall_result: outOfScope.length === 0 && !snapshotFailure ? "pass" : "fail",
    green_condition_alignment: "not_applicable",
    summary: snapshotFailure ? `${snapshotFailure}; ${scopeSummary}` : scopeSummary,
    evidence_refs: [],
    native_payload: { ...payload, out_of_scope: outOfScope, restricted: true },
  });
}

const SHADOWING_BINARY =
  "compiled Python code Python would load instead of, or without, its source, so what runs is not what the diff shows";

/**
 * Compiled Python the interpreter imports in place of source: any bytecode file and an extension
 * module (`slug.cpython-311-…so`, `.abi3.so`, `.pyd`, and a plain `slug.so`, which CPython also
 * loads as the module `slug`: review of stop 39; a shared library for ctypes is `libfoo.so` by
 * convention and passes). A coder could ship the fix, or a fake, as one of these while the source
 * stays as it was. Bytecode in `__pycache__` too (review 58, attack 58e): devflow's own runs never
 * read a `__pycache__` of the checkout (PYTHONPYCACHEPREFIX, run-command.ts), but the user's Python
 * does, and a `.pyc` compiled with `--invalidation-mode unchecked-hash` from other source is loaded
 * without a look at the `.py` the verifiers judged. Honest coders' test runs write no bytecode
 * (PYTHONDONTWRITEBYTECODE in the coder's environment, nodes/code.ts).
 */
function isShadowingBinary(file: string): boolean {
  const name = file.split("/").at(-1) ?? "";
  return (
    /\.py[co]$/.test(name) ||
    /\.(?:cpython-[^/]*|abi3|pypy[^/]*)\.so$|\.pyd$/.test(name) ||
    /^(?!lib)[A-Za-z_]\w*\.so$/.test(name)
  );
}

/** "src/auth" and "src/auth/" mean the folder and everything in it, as a person writing a scope means. */
function expandDirectoryPattern(pattern: string): string[] {
  if (pattern.endsWith("/")) return [`${pattern}**`];
  if (pattern.endsWith("**")) return [pattern];
  return [pattern, `${pattern}/**`];
}
