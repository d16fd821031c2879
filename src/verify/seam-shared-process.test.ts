import { describe, expect, it } from "vitest";
import type { RunnerInvocation } from "./report-run.js";
import { sharedProcessExposure } from "./seam-shared-process.js";
import type { TestReport } from "./test-reports/index.js";

/** A report of passing tests in `files`. */
const report = (runner: RunnerInvocation["runner"], files: string[]): TestReport => ({
  runner,
  source: "reporter",
  complete: true,
  tests: files.map((file, i) => ({
    id: { file, suites: [], title: `t${i}` },
    key: JSON.stringify([file, `t${i}`]),
    status: "pass",
  })),
  run_errors: [],
  parse_errors: [],
  notes: [],
});

const exposure = (
  runner: RunnerInvocation["runner"],
  script: string,
  loaded: string[],
  changedFiles: string[],
) =>
  sharedProcessExposure({
    invocation: { runner, script },
    report: report(runner, loaded),
    canaryFiles: ["test/slug.test.js.devflow-canary-1.js"],
    seamFiles: ["test/slug.test.js", "test/helpers.js"],
    changedFiles,
  });

describe("sharedProcessExposure: other test code the attempt changed ran in the seam's process", () => {
  it("names the other files loaded and the test code changed, on mocha, pytest and isolation-less node:test", () => {
    const found = exposure(
      "mocha",
      "mocha 'test/**/*.test.js'",
      ["test/slug.test.js", "test/aa.test.js"],
      ["src/slug.js", "test/aa.test.js"],
    );
    expect(found).toContain("into its one mocha process (test/aa.test.js)");
    expect(found).toContain("changed test code besides the seam's files (test/aa.test.js)");
    expect(
      exposure("pytest", "pytest tests", ["test/slug.test.js", "tests/test_a.py"], ["tests/test_a.py"]),
    ).not.toBeNull();
    expect(
      exposure(
        "node-test",
        "node --test --test-isolation=none test/",
        ["test/slug.test.js", "test/b.test.js"],
        ["test/b.test.js"],
      ),
    ).not.toBeNull();
  });

  it("is silent when nothing else shares the process or no other test code changed", () => {
    // Only the seam's files and the canary ran.
    expect(
      exposure(
        "mocha",
        "mocha test/slug.test.js",
        ["test/slug.test.js", "test/slug.test.js.devflow-canary-1.js"],
        ["test/aa.test.js"],
      ),
    ).toBeNull();
    // Others ran, but the attempt changed only program code (and the seam's pinned helper, seam integrity's finding).
    expect(
      exposure(
        "mocha",
        "mocha 'test/**'",
        ["test/slug.test.js", "test/math.test.js"],
        ["src/slug.js", "test/helpers.js"],
      ),
    ).toBeNull();
    // jest, vitest and node:test give each file its own module registry or process.
    for (const runner of ["jest", "vitest", "node-test"] as const)
      expect(
        exposure(runner, `${runner} test/`, ["test/slug.test.js", "test/aa.test.js"], ["test/aa.test.js"]),
      ).toBeNull();
  });

  it("reads tape's command words, as its TAP names no file", () => {
    expect(exposure("tape", "tape 'test/**/*.test.js'", [""], ["test/aa.test.js"])).toContain(
      "test/**/*.test.js",
    );
    expect(exposure("tape", "npx tape test/slug.test.js", [""], ["test/aa.test.js"])).toBeNull();
  });
});
