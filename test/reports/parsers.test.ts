import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jestAdapter } from "../../src/verify/test-reports/jest.js";
import { parseJunitXml } from "../../src/verify/test-reports/junit.js";
import { mochaAdapter } from "../../src/verify/test-reports/mocha.js";
import { nodeTestAdapter } from "../../src/verify/test-reports/node-test.js";
import { displayName } from "../../src/verify/test-reports/report-builder.js";
import { parseStdoutFallback } from "../../src/verify/test-reports/stdout-fallback.js";
import { tapeAdapter } from "../../src/verify/test-reports/tape.js";
import { TestReport } from "../../src/verify/test-reports/test-report.js";
import { vitestAdapter } from "../../src/verify/test-reports/vitest.js";

// Reports the real runners wrote for test/fixtures/runners/<runner>, with the checkout root
// replaced by /repo (see README.md in this folder).
const recorded = (name: string) => readFileSync(new URL(`./recorded/${name}`, import.meta.url), "utf8");
const root = "/repo";

/** "file > suites > title: status", the shape every full-path runner must produce for the fixture. */
function summary(report: TestReport): string[] {
  return report.tests.map((t) => `${displayName(t.id)}: ${t.status}`).sort();
}

const FULL_PATH_FIXTURE = [
  "test/math.test.js > math > clamp > works: pass",
  "test/math.test.js > math > works: pass",
  "test/math.test.js > works: pass",
  "test/slug.test.js > math > works: pass",
  "test/slug.test.js > slug > collapses repeated spaces: fail",
  "test/slug.test.js > slug > keeps unicode letters: skip",
  "test/slug.test.js > slug > transliterates: todo",
  "test/slug.test.js > slug > works: pass",
];

describe.each([
  ["jest", jestAdapter, "jest.json.txt"],
  ["vitest", vitestAdapter, "vitest.json.txt"],
  ["node-test", nodeTestAdapter, "node-test.ndjson.txt"],
] as const)("%s report", (_name, adapter, file) => {
  it("gives every test its full path and status", () => {
    const report = adapter.parse(recorded(file), { root });
    expect(TestReport.parse(report)).toEqual(report);
    expect(report.parse_errors).toEqual([]);
    expect(report.complete).toBe(true);
    expect(summary(report)).toEqual(FULL_PATH_FIXTURE);
    expect(new Set(report.tests.map((t) => t.key)).size).toBe(8);
  });

  it("a truncated report is incomplete, never an empty pass", () => {
    const text = recorded(file);
    for (const cut of [0.3, 0.7]) {
      const report = adapter.parse(text.slice(0, Math.floor(text.length * cut)), { root });
      expect(report.complete).toBe(false);
      expect(report.parse_errors.length).toBeGreaterThan(0);
    }
  });
});

describe("mocha JSON report", () => {
  it("keeps the file and the joined parent title", () => {
    const report = mochaAdapter.parse(recorded("mocha.json.txt"), { root });
    expect(report.complete).toBe(true);
    expect(summary(report)).toEqual([
      "test/math.test.js > math > works: pass",
      "test/math.test.js > math clamp > works: pass",
      "test/math.test.js > works: pass",
      "test/slug.test.js > math > works: pass",
      "test/slug.test.js > slug > collapses repeated spaces: fail",
      "test/slug.test.js > slug > keeps unicode letters: skip",
      "test/slug.test.js > slug > works: pass",
    ]);
    expect(report.notes.join()).toMatch(/joins suite titles/);
  });

  it("truncated JSON and a listing shorter than the stats are incomplete", () => {
    const text = recorded("mocha.json.txt");
    expect(mochaAdapter.parse(text.slice(0, 900), { root }).complete).toBe(false);
    const json = JSON.parse(text) as { tests: unknown[] };
    json.tests.pop();
    const short = mochaAdapter.parse(JSON.stringify(json), { root });
    expect(short.complete).toBe(false);
    expect(short.parse_errors[0]).toMatch(/7 tests in its stats but listed 6/);
  });

  it("a test listed in failures fails even when mocha wrote its error as {} (review attack44)", () => {
    // A thrown `Object.create(Error.prototype)` has no own properties: mocha's JSON writes `err: {}`
    // for it, exactly as for a passing test. Its place in `failures` is what says it failed.
    const json = JSON.parse(recorded("mocha.json.txt")) as {
      tests: Array<{ fullTitle: string; file: string; err: object }>;
      failures: Array<{ fullTitle: string; file: string; err: object }>;
    };
    const slug = json.tests.find((t) => t.fullTitle === "slug collapses repeated spaces");
    const failure = json.failures[0];
    if (!slug || !failure) throw new Error("recorded report changed");
    slug.err = {};
    failure.err = {};
    const report = mochaAdapter.parse(JSON.stringify(json), { root });
    expect(summary(report)).toContain("test/slug.test.js > slug > collapses repeated spaces: fail");
  });

  it("an empty-error failure of one of two same-named tests fails both (they cannot be told apart)", () => {
    const json = JSON.parse(recorded("mocha.json.txt")) as {
      stats: { tests: number };
      tests: Array<{ title: string; fullTitle: string; file: string; err: object }>;
      failures: Array<{ title: string; fullTitle: string; file: string; err: object }>;
    };
    const twin = { title: "works", fullTitle: "math clamp works", file: "/repo/test/math.test.js", err: {} };
    json.tests.unshift({ ...twin });
    json.stats.tests += 1;
    json.failures.push({ ...twin });
    const report = mochaAdapter.parse(JSON.stringify(json), { root });
    // Two tests of one name (the second keyed `#2`, shown under the same name): both fail.
    expect(
      summary(report).filter((line) => line.startsWith("test/math.test.js > math clamp > works")),
    ).toEqual([
      "test/math.test.js > math clamp > works: fail",
      "test/math.test.js > math clamp > works: fail",
    ]);
    // A failure that carries its error is matched to that test alone.
    const withError = JSON.parse(JSON.stringify(json)) as typeof json;
    const [first] = withError.tests;
    const last = withError.failures.at(-1);
    if (!first || !last) throw new Error("no twin");
    first.err = { message: "broken" };
    last.err = { message: "broken" };
    expect(
      summary(mochaAdapter.parse(JSON.stringify(withError), { root })).filter((line) =>
        line.startsWith("test/math.test.js > math clamp > works"),
      ),
    ).toEqual([
      "test/math.test.js > math clamp > works: fail",
      "test/math.test.js > math clamp > works: pass",
    ]);
  });

  it("a failing hook is a run error, not a test", () => {
    const json = JSON.parse(recorded("mocha.json.txt")) as { failures: unknown[] };
    json.failures.push({
      title: '"before all" hook',
      fullTitle: 'db "before all" hook',
      file: "/repo/test/db.js",
      err: { message: "x" },
    });
    const report = mochaAdapter.parse(JSON.stringify(json), { root });
    expect(report.run_errors).toEqual(['test/db.js: db "before all" hook']);
    expect(report.tests).toHaveLength(7);
  });
});

describe("jest-format details", () => {
  it("a file that failed to load is a run error and the totals still have to add up", () => {
    const json = JSON.parse(recorded("jest.json.txt")) as {
      testResults: Array<Record<string, unknown>>;
    };
    json.testResults.push({
      name: "/repo/test/broken.test.js",
      status: "failed",
      message: "\n  SyntaxError: x",
      assertionResults: [],
    });
    const report = jestAdapter.parse(JSON.stringify(json), { root });
    expect(report.run_errors).toEqual(["test/broken.test.js: SyntaxError: x"]);
    expect(report.complete).toBe(true);
  });

  it("an unknown status is a parse error", () => {
    const text = recorded("vitest.json.txt").replace('"status":"passed"', '"status":"exploded"');
    const report = vitestAdapter.parse(text, { root });
    expect(report.complete).toBe(false);
    expect(report.parse_errors.join()).toMatch(/unknown test status "exploded"/);
  });
});

describe("node:test events", () => {
  it("a file that failed to load is a run error", () => {
    const lines = [
      {
        event: "test:start",
        name: "/repo/test/broken.test.js",
        nesting: 0,
        file: "/repo/test/broken.test.js",
        type: null,
        skip: false,
        todo: false,
      },
      {
        event: "test:fail",
        name: "/repo/test/broken.test.js",
        nesting: 0,
        file: "/repo/test/broken.test.js",
        type: null,
        skip: false,
        todo: false,
      },
      { event: "devflow:end" },
    ];
    const report = nodeTestAdapter.parse(lines.map((l) => JSON.stringify(l)).join("\n"), { root });
    expect(report).toMatchObject({
      complete: true,
      tests: [],
      run_errors: ["test/broken.test.js: failed to load or run"],
    });
  });

  it("a report without the end marker is incomplete even when every line parses", () => {
    const text = recorded("node-test.ndjson.txt").replace(/.*devflow:end.*\n?/, "");
    const report = nodeTestAdapter.parse(text, { root });
    expect(report.complete).toBe(false);
    expect(report.tests).toHaveLength(8);
  });
});

describe("tape TAP", () => {
  it("reads tests from comments, tells same titles apart by order and says so", () => {
    const report = tapeAdapter.parse(recorded("tape.tap.txt"), { root });
    expect(report.complete).toBe(true);
    expect(report.tests.map((t) => [t.id.title, t.status])).toEqual([
      ["works", "pass"],
      ["works", "pass"],
      ["works", "pass"],
      ["works", "pass"],
      ["collapses repeated spaces", "fail"],
      ["keeps unicode letters", "skip"],
      ["works", "pass"],
    ]);
    expect(new Set(report.tests.map((t) => t.key)).size).toBe(7);
    expect(report.notes.join()).toMatch(/neither file nor suite/);
  });

  it("TAP cut before its plan, or short of it, is incomplete", () => {
    const text = recorded("tape.tap.txt");
    expect(tapeAdapter.parse(text.slice(0, 400), { root }).complete).toBe(false);
    expect(tapeAdapter.parse(text.replace("1..6", "1..7"), { root }).parse_errors.join()).toMatch(
      /planned 7/,
    );
    expect(tapeAdapter.parse("", { root }).complete).toBe(false);
  });

  it("a failing assertion marked TODO keeps its test from green; passing TODOs beside ok do not (attack44b)", () => {
    const tap = (...lines: string[]) => ["TAP version 13", ...lines].join("\n");
    const statuses = (text: string) =>
      tapeAdapter.parse(text, { root }).tests.map((t) => [t.id.title, t.status]);
    // tape's `t.equal(..., { todo: true })`: `not ok … # TODO` is an expected failure, not a pass.
    expect(
      statuses(tap("# clamps", "not ok 1 clamps # TODO", "ok 2 (unnamed assert)", "", "1..2", "")),
    ).toEqual([["clamps", "todo"]]);
    expect(statuses(tap("# clamps", "ok 1 clamps # TODO", "ok 2 more", "", "1..2", ""))).toEqual([
      ["clamps", "pass"],
    ]);
    expect(statuses(tap("# clamps", "not ok 1 a # TODO", "not ok 2 b", "", "1..2", ""))).toEqual([
      ["clamps", "fail"],
    ]);
  });

  it("a bail out is incomplete", () => {
    const report = tapeAdapter.parse("TAP version 13\n# a\nok 1 x\nBail out! db down\n1..1\n", { root });
    expect(report.complete).toBe(false);
  });
});

describe("JUnit XML", () => {
  it("mocha xunit: file attributes keep same-named suites apart", () => {
    const report = parseJunitXml("junit", recorded("mocha-xunit.xml.txt"), { root });
    expect(report.complete).toBe(true);
    expect(summary(report)).toEqual([
      "test/math.test.js > Mocha Tests > math > works: pass",
      "test/math.test.js > Mocha Tests > math clamp > works: pass",
      "test/math.test.js > Mocha Tests > works: pass",
      "test/slug.test.js > Mocha Tests > math > works: pass",
      "test/slug.test.js > Mocha Tests > slug > collapses repeated spaces: fail",
      "test/slug.test.js > Mocha Tests > slug > keeps unicode letters: skip",
      "test/slug.test.js > Mocha Tests > slug > works: pass",
    ]);
  });

  it("node's junit: nested suites, todo, and numbered duplicates when no file is named", () => {
    const report = parseJunitXml("junit", recorded("node-junit.xml.txt"), { root });
    expect(report.complete).toBe(true);
    const keys = report.tests.map((t) => t.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(report.tests.filter((t) => t.status === "todo")).toHaveLength(2);
    expect(report.tests.filter((t) => t.status === "fail").map((t) => displayName(t.id))).toEqual([
      "suite A > test > bad",
      "suite A > test > bad",
    ]);
  });

  it("cut-off XML is incomplete", () => {
    const text = recorded("mocha-xunit.xml.txt");
    const report = parseJunitXml("junit", text.slice(0, text.length / 2), { root });
    expect(report.complete).toBe(false);
    expect(report.parse_errors[0]).toMatch(/not well-formed/);
  });

  // pytest writes this when a hook calls pytest.exit inside a test's report (review, stop 45).
  it("a <testcase> with no name is no test; one that failed is a run error", () => {
    const xml = (inner: string) =>
      `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="0">${inner}</testsuite></testsuites>`;
    const quiet = parseJunitXml("pytest", xml('<testcase time="0.000" />'), { root });
    expect(quiet.complete).toBe(true);
    expect(quiet.tests).toEqual([]);
    expect(quiet.run_errors).toEqual([]);
    const failed = parseJunitXml("pytest", xml('<testcase time="0.000"><error message="x"/></testcase>'), {
      root,
    });
    expect(failed.tests).toEqual([]);
    expect(failed.run_errors).toEqual(["a <testcase> without a name reports a failure"]);
  });
});

describe("stdout fallback", () => {
  it("labels itself and is incomplete when nothing is recognised", () => {
    expect(parseStdoutFallback("TAP version 13\nok 1 - a\nnot ok 2 - b\n", { root })).toMatchObject({
      source: "stdout_fallback",
      complete: true,
      tests: [
        { id: { file: "", suites: [], title: "a" }, status: "pass" },
        { id: { file: "", suites: [], title: "b" }, status: "fail" },
      ],
    });
    expect(parseStdoutFallback("Segmentation fault\n", { root })).toMatchObject({
      complete: false,
      tests: [],
    });
  });
});
