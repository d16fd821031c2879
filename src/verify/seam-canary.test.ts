import { describe, expect, it } from "vitest";
import { folderWith } from "../../test/support/test-repo.js";
import type { RunnerInvocation } from "./report-run.js";
import { canaryName, judgeCanary, type SeamCanary, withSeamCanary } from "./seam-canary.js";
import { RUNNER_ADAPTERS } from "./test-reports/index.js";
import { appendArguments } from "./test-reports/script-rewrite.js";
import type { ReportedTest, TestReport } from "./test-reports/test-report.js";

const adapter = (runner: string) => {
  const found = RUNNER_ADAPTERS.find((a) => a.runner === runner);
  if (!found) throw new Error(runner);
  return found;
};

describe("appendArguments", () => {
  const append = (script: string, runner: string) =>
    appendArguments(script, adapter(runner).invocation, ["a.js", "'b c.js'"], runner);

  it("appends after the runner's own arguments, before a chained command or a redirection", () => {
    expect(append("mocha 'test/**/*.test.js' && echo done", "mocha")).toEqual({
      ok: true,
      command: "mocha 'test/**/*.test.js' a.js 'b c.js' && echo done",
    });
    expect(append("node --test test/ 2>&1", "node-test")).toEqual({
      ok: true,
      command: "node --test test/ a.js 'b c.js' 2>&1",
    });
    expect(append("jest", "jest")).toEqual({ ok: true, command: "jest a.js 'b c.js'" });
    expect(append("npx vitest run --coverage; true", "vitest")).toEqual({
      ok: true,
      command: "npx vitest run --coverage a.js 'b c.js'; true",
    });
    expect(append('tape "test/*.js" | tap-spec', "tape")).toEqual({
      ok: true,
      command: "tape \"test/*.js\" a.js 'b c.js' | tap-spec",
    });
  });

  it("refuses a script that invokes the runner twice or not at all", () => {
    expect(append("mocha a && mocha b", "mocha").ok).toBe(false);
    expect(append("echo hi", "jest").ok).toBe(false);
  });
});

describe("canaryName", () => {
  it("keeps the runner's test pattern, and sorts right after the seam file for mocha and tape", () => {
    expect(canaryName("slug.test.js", "n1", "jest")).toBe("slug.devflow-canary-n1.test.js");
    expect(canaryName("slug.spec.ts", "n1", "vitest")).toBe("slug.devflow-canary-n1.spec.ts");
    expect(canaryName("test-slug.js", "n1", "node-test")).toBe("test-slug-devflow-canary-n1.js");
    expect(canaryName("slug_test.mjs", "n1", "node-test")).toBe("devflow-canary-n1-slug_test.mjs");
    expect(canaryName("slug.test.js", "n1", "mocha")).toBe("slug.test.js.devflow-canary-n1.js");
    expect(canaryName("slug.test.cjs", "n1", "tape")).toBe("slug.test.cjs.devflow-canary-n1.cjs");
    // A Python module name; pytest collects a file named on its command line whatever its patterns.
    expect(canaryName("test_slug.py", "n1", "pytest")).toBe("test_slug_devflow_canary_n1.py");
    expect(canaryName("slug_test.py", "n1", "pytest")).toBe("test_devflow_canary_n1_slug_test.py");
  });
});

describe("judgeCanary", () => {
  const canary: Extract<SeamCanary, { kind: "placed" }> = {
    kind: "placed",
    invocation: { runner: "mocha", script: "mocha x" },
    files: ["test/x.test.js.devflow-canary-n0.js"],
    titles: ["devflow seam canary n0"],
    messageNonce: "secret",
  };
  const test = (status: ReportedTest["status"]): ReportedTest => ({
    id: { file: "test/x.test.js.devflow-canary-n0.js", suites: [], title: "devflow seam canary n0" },
    key: "k",
    status,
  });
  const report = (tests: ReportedTest[]): TestReport => ({
    runner: "mocha",
    source: "reporter",
    complete: true,
    tests,
    parse_errors: [],
    run_errors: [],
    notes: [],
  });
  const text = '{"err":{"message":"devflow seam canary secret: this assertion must fail"}}';

  it("accepts a canary that failed with its message and a non-zero exit", () => {
    expect(judgeCanary(canary, report([test("fail")]), text, 1)).toEqual({ ok: true });
  });

  it("names a canary reported passing, skipped or missing as tampering", () => {
    const reason = (tests: ReportedTest[]) => {
      const v = judgeCanary(canary, report(tests), text, 1);
      return v.ok ? null : v.reason;
    };
    expect(reason([test("pass")])).toMatch(
      /^the seam run cannot fail: the canary test ".*" passed \(assertion library or reporter tampered\)$/,
    );
    expect(reason([test("skip")])).toMatch(/was reported skip/);
    expect(reason([])).toMatch(/is missing from the report/);
  });

  it("rejects a failure without the canary's message and an exit status 0", () => {
    const noMessage = judgeCanary(canary, report([test("fail")]), '{"err":{"message":"forged"}}', 1);
    expect(noMessage.ok ? null : noMessage.reason).toMatch(/without its own assertion message/);
    const exit0 = judgeCanary(canary, report([test("fail")]), text, 0);
    expect(exit0.ok ? null : exit0.reason).toMatch(/exit status forged/);
  });
});

// Regression (stop 29): a name filter in the seam deselected the canary, read as tampering.
describe("a seam selecting tests by name runs without a canary", () => {
  /** Whether the canary is placed for `script`, next to a seam test file named as `runner` names them. */
  const placed = (runner: RunnerInvocation["runner"], script: string) => {
    const file = runner === "pytest" ? "tests/test_a.py" : "test/a.test.js";
    return withSeamCanary(folderWith({ [file]: "" }), { runner, script }, [file], async (c) => c.kind);
  };
  it.each([
    ["jest", "npx jest test/a.test.js -t collapses"],
    ["jest", "jest --testNamePattern=collapses"],
    ["vitest", "vitest run -t collapses"],
    ["mocha", "mocha --grep collapses test/a.test.js"],
    ["node-test", "node --test --test-name-pattern=collapses test/a.test.js"],
    ["pytest", "python3 -m pytest tests/test_a.py -k spaces"],
    ["pytest", "pytest -m slow tests/test_a.py"],
  ] as const)("%s: %s", async (runner, script) => {
    expect(await placed(runner, script)).toBe("not_placed");
  });
  it.each([
    ["jest", "npx jest test/a.test.js --testPathPattern a"],
    ["mocha", "mocha -t 5000 test/a.test.js"],
    ["pytest", "python3 -m pytest tests/test_a.py -q"],
    ["pytest", "python3 -m pytest tests/test_a.py::test_spaces"],
  ] as const)("%s keeps its canary: %s", async (runner, script) => {
    expect(await placed(runner, script)).toBe("placed");
  });
});
