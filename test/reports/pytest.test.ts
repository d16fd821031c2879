/**
 * pytest's adapter (issue 9, stop 29): the project's own pytest asked for its JUnit report, read
 * as full-path identities. Real pytest on a real project in a temp dir.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { PYTEST_PLUGIN_DIR, pytestAdapter } from "../../src/verify/test-reports/index.js";
import { folderWith } from "../support/test-repo.js";
import { withReportChannel } from "./runner-fixture.js";

const PROJECT = {
  "pytest.ini": "[pytest]\npythonpath = .\n",
  "slug.py": 'def slugify(t):\n    return t.replace(" ", "-")\n',
  "tests/test_slug.py": [
    "import pytest",
    "from slug import slugify",
    "def test_one():",
    '    assert slugify("a b") == "a-b"',
    "class TestSpaces:",
    "    def test_one(self):",
    '        assert slugify("a  b") == "a-b"',
    '@pytest.mark.parametrize("n", [1, 2])',
    "def test_param(n):",
    "    assert n == 1",
    '@pytest.mark.skip(reason="later")',
    "def test_skipped():",
    "    pass",
  ].join("\n"),
  "tests/other/test_slug_more.py": "def test_one():\n    assert True\n",
};

/** Runs the adapter's command in `dir` (its report over devflow's channel) and parses the report. */
async function run(dir: string, script: string) {
  const request = pytestAdapter.command(script, join(dir, "..", "report.xml"));
  if (request.kind !== "report_file") throw new Error(request.reason);
  const result = await withReportChannel(request, (env) =>
    execa("sh", ["-c", request.command], { cwd: dir, reject: false, env }),
  );
  return {
    exit: result.exitCode,
    report: pytestAdapter.parse(readFileSync(request.reportPath, "utf8"), { root: dir }),
  };
}

describe("pytest's JUnit report", () => {
  it("asks for it right after the invocation and refuses a script that sets its own", () => {
    expect(pytestAdapter.command("python3 -m pytest -q tests/x.py && echo done", "/r/out.xml")).toEqual({
      kind: "report_file",
      runner: "pytest",
      command:
        "python3 -m pytest --junitxml='/r/out.xml' -o junit_family=xunit1 -p devflow_report_channel -q tests/x.py && echo done",
      reportPath: "/r/out.xml",
      via: "channel",
      env: { PYTHONPATH: PYTEST_PLUGIN_DIR },
    });
    // A script setting its own PYTHONPATH: pytest starts under a shell that appends devflow's folder.
    expect(pytestAdapter.command("PYTHONPATH=src pytest", "/r/o.xml")).toEqual({
      kind: "report_file",
      runner: "pytest",
      command: `PYTHONPATH=src /bin/sh -c 'PYTHONPATH="\${PYTHONPATH:+$PYTHONPATH:}"'\\''${PYTEST_PLUGIN_DIR}'\\''; export PYTHONPATH; exec "$@"' devflow-pytest-path pytest --junitxml='/r/o.xml' -o junit_family=xunit1 -p devflow_report_channel`,
      reportPath: "/r/o.xml",
      via: "channel",
      env: { PYTHONPATH: PYTEST_PLUGIN_DIR },
    });
    // …unless pytest is another program's argument, whose python that program starts: the file.
    const onFile = pytestAdapter.command("env PYTHONPATH=src coverage run -m pytest", "/r/o.xml");
    expect(onFile).toMatchObject({
      command: "env PYTHONPATH=src coverage run -m pytest --junitxml='/r/o.xml' -o junit_family=xunit1",
    });
    expect(onFile).not.toHaveProperty("via");
    // Without a PYTHONPATH of its own the environment's folder is enough: nothing is wrapped.
    expect(pytestAdapter.command("coverage run -m pytest", "/r/o.xml")).toMatchObject({
      command:
        "coverage run -m pytest --junitxml='/r/o.xml' -o junit_family=xunit1 -p devflow_report_channel",
      via: "channel",
    });
    expect(pytestAdapter.command("pytest", "/r/o.xml")).toMatchObject({ kind: "report_file" });
    expect(pytestAdapter.command(".venv/bin/python3.11 -m pytest", "/r/o.xml")).toMatchObject({
      kind: "report_file",
    });
    expect(pytestAdapter.command("pytest --junitxml=own.xml", "/r/o.xml")).toMatchObject({
      kind: "unsupported",
    });
    expect(pytestAdapter.command("pytest a && pytest b", "/r/o.xml")).toMatchObject({ kind: "unsupported" });
    expect(pytestAdapter.detect({ script: "python -m pytest -q", dependencies: [] })).toBe(true);
    expect(pytestAdapter.detect({ script: "node --test test/pytest.test.js", dependencies: [] })).toBe(false);
    expect(pytestAdapter.detect({ script: "cat pytest.ini", dependencies: [] })).toBe(false);
  });

  it("names each test by file, class path and function, same-named tests apart", async () => {
    const dir = folderWith(PROJECT);
    const { exit, report } = await run(dir, "python3 -m pytest -q");
    expect(exit).toBe(1);
    expect(report).toMatchObject({ runner: "pytest", complete: true, run_errors: [] });
    const status = Object.fromEntries(report.tests.map((t) => [t.key, t.status]));
    expect(status).toEqual({
      [JSON.stringify(["tests/test_slug.py", "pytest", "tests.test_slug", "test_one"])]: "pass",
      [JSON.stringify(["tests/test_slug.py", "pytest", "tests.test_slug.TestSpaces", "test_one"])]: "fail",
      [JSON.stringify(["tests/test_slug.py", "pytest", "tests.test_slug", "test_param[1]"])]: "pass",
      [JSON.stringify(["tests/test_slug.py", "pytest", "tests.test_slug", "test_param[2]"])]: "fail",
      [JSON.stringify(["tests/test_slug.py", "pytest", "tests.test_slug", "test_skipped"])]: "skip",
      [JSON.stringify(["tests/other/test_slug_more.py", "pytest", "tests.other.test_slug_more", "test_one"])]:
        "pass",
    });
  });

  // Stop 51: such a script kept pytest's report file (a watcher could rewrite it, attack 54e) and
  // had no canary. The folder is appended, so the project's own path still works.
  it.for([
    "PYTHONPATH=src python3 -m pytest -q tests",
    "export PYTHONPATH=src && python3 -m pytest -q tests",
    "env PYTHONPATH=src:lib python3 -m pytest -q tests",
  ])(
    "a script setting its own PYTHONPATH (%s) keeps it and sends its report over the channel",
    async (script) => {
      const dir = folderWith({
        "src/slug.py": 'def slugify(t):\n    return t.replace(" ", "-")\n',
        "lib/words.py": "SEP = '-'\n",
        "tests/test_slug.py":
          "from slug import slugify\ndef test_one():\n    assert slugify('a b') == 'a-b'\n",
      });
      expect(pytestAdapter.command(script, "/r/o.xml")).toMatchObject({ via: "channel" });
      const { exit, report } = await run(dir, script);
      expect(report).toMatchObject({ runner: "pytest", complete: true, run_errors: [] });
      expect(report.tests.map((t) => [t.id.title, t.status])).toEqual([["test_one", "pass"]]);
      expect(exit).toBe(0);
    },
  );

  // A module that does not import is no test: the run had no verdict for its tests (strict base).
  it("reports a module pytest could not collect as a run error, not a failing test", async () => {
    const dir = folderWith({ ...PROJECT, "tests/test_broken.py": "import not_a_module\n" });
    const { exit, report } = await run(dir, "python3 -m pytest -q tests/test_broken.py");
    expect(exit).not.toBe(0);
    expect(report.tests).toEqual([]);
    expect(report.run_errors).toEqual(["pytest could not collect tests.test_broken"]);
  });
});

// The machine has pytest (the fixture above needs it): fail loudly rather than skip if it is gone.
execFileSync("python3", ["-m", "pytest", "--version"], { stdio: "ignore" });
