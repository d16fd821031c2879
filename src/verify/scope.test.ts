import { describe, expect, it } from "vitest";
import { ScopeEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import { runScopeVerifier } from "./scope.js";

const scope = (allowed_paths: string[]) => ({
  statement: "Fix the CSV import only",
  allowed_paths,
  out_of_scope: [],
});

function run(changedFiles: string[], allowed: string[], seamFiles: string[] = []) {
  const e = runScopeVerifier({ changedFiles, scope: scope(allowed), seamFiles, attemptId: "attempt-001" });
  return ScopeEnvelope.parse(e);
}

describe("runScopeVerifier", () => {
  it("passes files matched by globs", () => {
    const e = run(
      ["src/import/csv.ts", "src/import/deep/x.ts", "test/import.test.ts"],
      ["src/import/**", "test/*.test.ts"],
    );
    expect(e.overall_result).toBe("pass");
    expect(e.green_condition_alignment).toBe("not_applicable");
    expect(e.summary).toContain("all 3 changed file(s)");
  });

  it("fails naming each out-of-scope file", () => {
    const e = run(["src/import/csv.ts", "src/auth/login.ts", "package.json"], ["src/import/**"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("src/auth/login.ts");
    expect(e.summary).toContain("package.json");
    expect(e.native_payload.out_of_scope).toEqual(["src/auth/login.ts", "package.json"]);
  });

  it("treats an empty allowed_paths as not restricted by path", () => {
    const e = run(["anything/at/all.ts"], []);
    expect(e.overall_result).toBe("pass");
    expect(e.summary).toContain("not restricted by path");
  });

  it("allows the seam's own files even outside the globs", () => {
    const e = run(["src/import/csv.ts", "repro/csv.test.ts"], ["src/import/**"], ["repro/csv.test.ts"]);
    expect(e.overall_result).toBe("pass");
  });

  // Was "never counts .devflow/ paths": a `.devflow/` folder the coder wrote into its checkout was
  // exempt and got committed (issue 9, class 3). devflow's own home is now kept out of every
  // snapshot instead (ADR 0024), so a `.devflow/` path in the change is the coder's and is judged.
  it("judges .devflow/ paths in the change like any other path", () => {
    const e = run([".devflow/evil.js", "src/import/a.ts"], ["src/import/**"]);
    expect(e.overall_result).toBe("fail");
    expect(e.native_payload.out_of_scope).toEqual([".devflow/evil.js"]);
  });

  it("fails on snapshot findings, naming each, even when scope is not restricted", () => {
    const findings = [
      "ignored, not in the snapshot: build/fix.js",
      "symlink leaving the repository: x -> /etc",
    ];
    const e = ScopeEnvelope.parse(
      runScopeVerifier({
        changedFiles: ["src/import/a.ts"],
        scope: scope([]),
        seamFiles: [],
        attemptId: "attempt-001",
        snapshotFindings: findings,
      }),
    );
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("build/fix.js");
    expect(e.native_payload.snapshot_findings).toEqual(findings);
  });

  it("reads a bare folder or a trailing slash as the whole folder", () => {
    expect(run(["src/import/a/b.ts"], ["src/import"]).overall_result).toBe("pass");
    expect(run(["src/import/a/b.ts"], ["src/import/"]).overall_result).toBe("pass");
    expect(run(["src/important.ts"], ["src/import"]).overall_result).toBe("fail");
  });

  it("matches dotfiles and ignores a leading ./", () => {
    expect(run(["./src/.env.example"], ["./src/**"]).overall_result).toBe("pass");
  });

  it("passes when nothing changed", () => {
    expect(run([], ["src/**"]).overall_result).toBe("pass");
  });
});

// Regression (stop 29): a sourceless `slug.pyc` (or an extension module beside `slug.py`) is what
// Python imports, whatever the source says; a coder shipped the fix that way with the source unchanged.
describe("compiled Python that would run instead of its source", () => {
  it("fails scope by name, also when the scope is not restricted; other binaries pass", () => {
    const bad = [
      "slug.pyc",
      // Review 58 (attack 58e): an unchecked-hash .pyc in __pycache__ runs without its source.
      "__pycache__/slug.cpython-311.pyc",
      "pkg/mod.pyo",
      "pkg/_speed.cpython-311-x86_64-linux-gnu.so",
      "ext.abi3.so",
      "win.pyd",
      // Review of stop 39: CPython loads a plain `slug.so` as the module `slug`, before slug.py.
      "slug.so",
    ];
    const e = run([...bad, "src/slug.py"], []);
    expect(e.overall_result).toBe("fail");
    for (const f of bad) expect(e.summary).toContain(`${f} (compiled Python code`);
    const fine = run(["__pycache__/README", "lib/libfoo.so", "img/logo.png", "src/slug.py"], []);
    expect(fine.overall_result).toBe("pass");
  });
});
