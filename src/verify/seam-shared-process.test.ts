import { describe, expect, it } from "vitest";
import { folderWith } from "../../test/support/test-repo.js";
import type { RunnerInvocation } from "./report-run.js";
import { computedLoadExposure, mockExposure, sharedProcessExposure } from "./seam-shared-process.js";
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

interface Case {
  runner: RunnerInvocation["runner"];
  script: string;
  loaded: string[];
  changed: string[];
  files?: Record<string, string>;
  seam?: string[];
}

/** The checkout holds the changed files (a deleted one is not there) and `files`. */
const exposure = (c: Case) =>
  sharedProcessExposure({
    checkoutDir: folderWith({
      "README.md": "",
      ...Object.fromEntries(c.changed.filter((f) => !f.includes("old-behaviour")).map((f) => [f, ""])),
      ...c.files,
    }),
    invocation: { runner: c.runner, script: c.script },
    report: report(c.runner, c.loaded),
    canaryFiles: ["test/slug.test.js.devflow-canary-1.js"],
    seamFiles: c.seam ?? ["test/slug.test.js", "test/helpers.js"],
    changedFiles: c.changed,
  });

const PY = ["tests/test_slug.py"];

describe("sharedProcessExposure: other test code the attempt changed ran in the seam's process", () => {
  it("names what else the run loads and the test code changed", () => {
    const found = exposure({
      runner: "mocha",
      script: "npx mocha 'test/**/*.test.js'",
      loaded: ["test/slug.test.js", "test/aa.test.js"],
      changed: ["src/slug.js", "test/aa.test.js"],
    });
    expect(found).toContain("into its one mocha process (test/aa.test.js, test/**/*.test.js)");
    expect(found).toContain("changed test code besides the seam's files (test/aa.test.js)");
  });

  it("does not count a test file the attempt deleted", () => {
    const c: Case = {
      runner: "mocha",
      script: "npx mocha 'test/**/*.test.js'",
      loaded: ["test/slug.test.js", "test/math.test.js"],
      changed: ["test/old-behaviour.test.js"],
    };
    expect(exposure(c)).toBeNull();
    expect(exposure({ ...c, files: { "test/old-behaviour.test.js": "" } })).not.toBeNull();
  });

  it.each<Case>([
    // A module with no test of its own is in no report: the folder the command names says it.
    {
      runner: "pytest",
      script: "python3 -m pytest tests",
      loaded: PY,
      changed: ["tests/test_aa.py"],
      seam: PY,
    },
    // No path at all: the runner's own discovery.
    { runner: "pytest", script: "python3 -m pytest -q", loaded: PY, changed: ["tests/test_aa.py"], seam: PY },
    {
      runner: "pytest",
      script: "python3 -m pytest tests/test_slug.py",
      loaded: PY,
      changed: ["tests/test_aa.py"],
      seam: PY,
      files: { "pytest.ini": "[pytest]\naddopts = tests/unit\n" },
    },
    {
      runner: "mocha",
      script: "npx mocha test/slug.test.js",
      loaded: ["test/slug.test.js"],
      changed: ["test/aa.test.js"],
      files: { ".mocharc.yml": "spec: test/**/*.test.js\n" },
    },
    // A loaded file the attempt changed counts whatever its path looks like.
    {
      runner: "mocha",
      script: "npx mocha 'lib/**/*.js'",
      loaded: ["test/slug.test.js", "lib/patch.js"],
      changed: ["lib/patch.js"],
    },
    {
      runner: "node-test",
      script: "node --test --test-isolation=none test/",
      loaded: ["test/slug.test.js", "test/b.test.js"],
      changed: ["test/b.test.js"],
    },
    { runner: "tape", script: "tape 'test/**/*.test.js'", loaded: [""], changed: ["test/aa.test.js"] },
    // Found in review (stop 30): a bare folder selects as much as `tests/`, in addopts too.
    {
      runner: "pytest",
      script: "python3 -m pytest tests/test_slug.py",
      loaded: PY,
      changed: ["tests/test_aa.py"],
      seam: PY,
      files: { "pytest.ini": "[pytest]\naddopts = -q tests\n" },
    },
    {
      runner: "mocha",
      script: "mocha test/slug.test.js test",
      loaded: ["test/slug.test.js"],
      changed: ["test/aa.test.js"],
    },
    // mocha's -c is --color, no value: the next word is a spec.
    {
      runner: "mocha",
      script: "mocha -c test/other.test.js test/slug.test.js",
      loaded: ["test/slug.test.js"],
      changed: ["test/other.test.js"],
    },
    // A module pytest collects by the project's python_files, with no test and no test-like path.
    {
      runner: "pytest",
      script: "python3 -m pytest -q blog",
      loaded: ["blog/tests.py"],
      changed: ["blog/zz_checks.py"],
      seam: ["blog/tests.py"],
      files: { "pytest.ini": "[pytest]\npython_files = tests.py *_checks.py\n" },
    },
    {
      runner: "vitest",
      script: "vitest run --poolOptions.threads.isolate=false",
      loaded: ["test/slug.test.js"],
      changed: ["test/aa.test.js"],
    },
    // vitest without isolation: one module graph per worker.
    {
      runner: "vitest",
      script: "vitest run --no-isolate",
      loaded: ["test/slug.test.js", "test/aa.test.js"],
      changed: ["test/aa.test.js"],
    },
    {
      runner: "vitest",
      script: "vitest run",
      loaded: ["test/slug.test.js", "test/aa.test.js"],
      changed: ["test/aa.test.js"],
      files: { "vitest.config.ts": "export default { test: { isolate: false } };\n" },
    },
  ])("refuses $runner `$script` with $changed changed", (c) => {
    expect(exposure(c)).toMatch(/the attempt changed test code besides the seam's files/);
  });

  it.each<Case>([
    // The command names the seam's files only: nothing else shares the process.
    {
      runner: "mocha",
      script: "npx mocha -t 5000 test/slug.test.js",
      loaded: ["test/slug.test.js"],
      changed: ["test/aa.test.js"],
    },
    {
      runner: "pytest",
      script: "python3 -m pytest tests/test_slug.py::test_spaces -k spaces",
      loaded: PY,
      changed: ["tests/test_aa.py"],
      seam: PY,
    },
    { runner: "tape", script: "npx tape test/slug.test.js", loaded: [""], changed: ["test/aa.test.js"] },
    // A flag's value is no test file: a plugin, a setup file, a timeout.
    {
      runner: "pytest",
      script: "python3 -m pytest -p devtools.extra tests/test_slug.py",
      loaded: PY,
      changed: ["tests/test_aa.py"],
      seam: PY,
      files: { "pytest.ini": "[pytest]\naddopts = -p devtools.pytest_env -o log_cli=true\n" },
    },
    {
      runner: "mocha",
      script: "mocha -r test/setup.js test/slug.test.js",
      loaded: ["test/slug.test.js"],
      changed: ["test/aa.test.js"],
    },
    // Found in review (stop 30): pytest names files from its rootdir (`backend/`): the seam's own.
    {
      runner: "pytest",
      script: "python3 -m pytest backend/tests/test_slug.py",
      loaded: ["tests/test_slug.py"],
      changed: ["backend/tests/test_other.py"],
      seam: ["backend/tests/test_slug.py"],
    },
    // Data is no code: a fixture or snapshot patches no module.
    {
      runner: "mocha",
      script: "npx mocha 'test/**/*.test.js'",
      loaded: ["test/slug.test.js", "test/math.test.js"],
      changed: ["test/fixtures/expected.json", "test/__snapshots__/slug.test.js.snap"],
    },
    // A script named "spec" is no mocha spec; a nested package.json is no config mocha reads.
    {
      runner: "mocha",
      script: "npx mocha test/slug.test.js",
      loaded: ["test/slug.test.js"],
      changed: ["test/aa.test.js"],
      files: {
        "package.json": '{"scripts":{"spec":"mocha test/unit"}}',
        "test/package.json": '{"mocha":{"spec":"x"}}',
      },
    },
    // Others ran, but the attempt changed only program code and the seam's pinned helper (seam integrity's finding).
    {
      runner: "mocha",
      script: "npx mocha 'test/**'",
      loaded: ["test/slug.test.js", "test/math.test.js"],
      changed: ["src/slug.js", "test/helpers.js"],
    },
    // jest, vitest and node:test give each file its own module registry or process.
    {
      runner: "jest",
      script: "jest test/",
      loaded: ["test/slug.test.js", "test/aa.test.js"],
      changed: ["test/aa.test.js"],
    },
    {
      runner: "vitest",
      script: "vitest run",
      loaded: ["test/slug.test.js", "test/aa.test.js"],
      changed: ["test/aa.test.js"],
    },
    {
      runner: "node-test",
      script: "node --test test/",
      loaded: ["test/slug.test.js", "test/aa.test.js"],
      changed: ["test/aa.test.js"],
    },
  ])("lets $runner `$script` with $changed changed be", (c) => {
    expect(exposure(c)).toBeNull();
  });
});

/**
 * Regression (stop 31): a seam file that loads test files by a computed name loaded a new
 * `test/aa.test.js` that replaced the function under test (test/adversarial/computed-loader-fakes-the-seam.test.ts).
 */
describe("computedLoadExposure: test code the attempt changed, with a seam loading by a computed name", () => {
  const exposure = (loaders: string[], changedFiles: string[]) =>
    computedLoadExposure({
      checkoutDir: folderWith({
        "test/all.js": "",
        "test/slug.test.js": "",
        "test/aa.test.js": "",
        "test/fixtures/rows.json": "",
        "src/slug.js": "",
      }),
      loaders,
      seamFiles: ["test/all.js", "test/slug.test.js"],
      changedFiles,
    });
  it("names the loader and the test code changed", () => {
    expect(exposure(["test/all.js"], ["src/slug.js", "test/aa.test.js"])).toContain(
      "the seam's test/all.js loads test files by a computed name, and the attempt changed test code besides the seam's files (test/aa.test.js)",
    );
  });
  it.each([
    ["no loader", [], ["test/aa.test.js"]],
    ["the fix's program code only", ["test/all.js"], ["src/slug.js"]],
    ["the seam's own files (seam integrity's finding)", ["test/all.js"], ["test/slug.test.js"]],
    ["a deleted test file", ["test/all.js"], ["test/gone.test.js"]],
    ["test data, not code", ["test/all.js"], ["test/fixtures/rows.json"]],
  ] as const)("none for %s", (_, loaders, changed) => {
    expect(exposure([...loaders], [...changed])).toBeNull();
  });
});

// Stop 32: a new `__mocks__/slash.js` replaced the package slugify calls, with no loader in the
// base's code (test/adversarial/mocks-folder-fakes-the-seam.test.ts).
describe("mockExposure: mock code the attempt changed", () => {
  const exposure = (
    changedFiles: string[],
    seamFiles = ["test/slug.test.js"],
    runner: "jest" | "mocha" | "pytest" | "junit" | undefined = "jest",
  ) => mockExposure({ seamFiles, changedFiles, runner });
  it("names a package's mock and a module's mock, wherever the folder is, added, edited or deleted, of any kind", () => {
    expect(exposure(["src/slug.js", "__mocks__/slash.js", "src/__mocks__/db.ts"])).toContain(
      "the attempt changed mock code (__mocks__/slash.js, src/__mocks__/db.ts)",
    );
    // Review (stop 32): jest applies a JSON mock too, and a deleted mock lets the real module in.
    expect(exposure(["__mocks__/charmap.json"])).toContain("(__mocks__/charmap.json)");
    expect(exposure(["__mocks__/gone.js"], ["test/slug.test.js"], undefined)).toContain(
      "(__mocks__/gone.js)",
    );
    expect(exposure(["__mocks__/slash.js"], ["test/slug.test.js"], "junit")).not.toBeNull();
  });
  it("is null for program code, mocks in node_modules, a mock that is a seam file, and runners without mocks", () => {
    expect(exposure(["src/slug.js"])).toBeNull();
    expect(exposure(["node_modules/x/__mocks__/y.js"])).toBeNull();
    expect(exposure(["__mocks__/slash.js"], ["test/slug.test.js", "__mocks__/slash.js"])).toBeNull();
    expect(exposure(["web/__mocks__/x.js"], ["tests/test_slug.py"], "pytest")).toBeNull();
    expect(exposure(["web/__mocks__/x.js"], ["test/slug.test.js"], "mocha")).toBeNull();
  });
});
