import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RegressionEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import {
  NO_TEST_COMMAND_SUMMARY,
  type RegressionBaseline,
  runRegressionVerifier,
  takeRegressionBaseline,
} from "./regression.js";
import { detectTestCommand } from "./test-command.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-regression-"));
  await writeFile(
    join(dir, "calc.mjs"),
    "export const add = (a, b) => a + b;\nexport const trim = (s) => s;\n",
  );
  await writeFile(
    join(dir, "calc.test.mjs"),
    [
      'import test from "node:test";',
      'import assert from "node:assert";',
      'import { add, trim } from "./calc.mjs";',
      'test("add works", () => assert.equal(add(2, 2), 4));',
      'test("add is commutative", () => assert.equal(add(1, 2), add(2, 1)));',
      'test("trim strips spaces", () => assert.equal(trim(" a "), "a"));',
    ].join("\n"),
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const baseline = (command = "node --test") =>
  takeRegressionBaseline({
    cwd: dir,
    command,
    timeoutMs: 30_000,
    logPath: join(dir, ".logs", "baseline.log"),
  });

async function verify(command: string | null, base: RegressionBaseline | null) {
  const e = await runRegressionVerifier({
    worktree: dir,
    command,
    baseline: base,
    timeoutMs: 30_000,
    logPath: join(dir, ".logs", "regression.log"),
    attemptId: "attempt-001",
  });
  return RegressionEnvelope.parse(e);
}

const fixTrim = () =>
  writeFile(
    join(dir, "calc.mjs"),
    "export const add = (a, b) => a + b;\nexport const trim = (s) => s.trim();\n",
  );

describe("takeRegressionBaseline", () => {
  it("records per-test results of the base from the runner's report, by full identity", async () => {
    const b = await baseline();
    expect(b.ran).toBe(true);
    expect(b.exitCode).toBe(1);
    expect(b.invocation).toEqual({ runner: "node-test", script: "node --test" });
    expect(b.report?.complete).toBe(true);
    expect(Object.fromEntries((b.report?.tests ?? []).map((t) => [t.key, t.status]))).toEqual({
      '["calc.test.mjs","add works"]': "pass",
      '["calc.test.mjs","add is commutative"]': "pass",
      '["calc.test.mjs","trim strips spaces"]': "fail",
    });
  });

  it("records per-test results parsed from the console when no runner is recognised", async () => {
    await writeFile(join(dir, "run.sh"), "node --test\n");
    const b = await baseline("sh run.sh");
    expect(b.invocation).toBeNull();
    expect(b.tests).toEqual({
      "add works": "pass",
      "add is commutative": "pass",
      "trim strips spaces": "fail",
    });
  });

  it("records a command that does not exist as not ran", async () => {
    const b = await baseline("devflow-no-such-runner");
    expect(b.ran).toBe(false);
    expect(b.error).toContain("was not found");
  });
});

describe("runRegressionVerifier", () => {
  it("passes when the seam test newly passes and nothing else changed", async () => {
    const b = await baseline();
    await fixTrim();
    const e = await verify("node --test", b);
    expect(e.overall_result).toBe("pass");
    expect(e.green_condition_alignment).toBe("not_applicable");
    expect(e.summary).toContain("newly passing: calc.test.mjs > trim strips spaces");
    expect(e.native_payload).toMatchObject({ compared: "per_test", source: "reporter" });
    expect(e.evidence_refs).toEqual([
      join(dir, ".logs", "regression.log"),
      join(dir, ".logs", "baseline.log"),
    ]);
  });

  it("fails naming a test that was green on base and is red now", async () => {
    const b = await baseline();
    await writeFile(
      join(dir, "calc.mjs"),
      "export const add = (a, b) => a + b + 1;\nexport const trim = (s) => s.trim();\n",
    );
    const e = await verify("node --test", b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("calc.test.mjs > add works (fail)");
    expect(e.summary).not.toContain("add is commutative");
    expect(e.native_payload).toMatchObject({
      regressions: [{ name: "calc.test.mjs > add works", now: "fail" }],
    });
  });

  it("fails naming a test that was green on base and is gone now", async () => {
    const b = await baseline();
    await writeFile(
      join(dir, "calc.test.mjs"),
      'import test from "node:test";\nimport assert from "node:assert";\nimport { add } from "./calc.mjs";\ntest("add works", () => assert.equal(add(2, 2), 4));\n',
    );
    const e = await verify("node --test", b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("calc.test.mjs > add is commutative (missing)");
  });

  it("fails when the suite was green on base and goes red through a new failing test", async () => {
    await fixTrim();
    const b = await baseline();
    expect(b.exitCode).toBe(0);
    await writeFile(
      join(dir, "extra.test.mjs"),
      'import test from "node:test";\ntest("new one", () => { throw new Error("no"); });\n',
    );
    const e = await verify("node --test", b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toBe("1 test(s) fail now that did not fail on base: extra.test.mjs > new one");
  });

  it("runs the detected npm test script end to end", async () => {
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "fixture", private: true, scripts: { test: "node --test" } }),
    );
    const detected = detectTestCommand(dir);
    expect(detected?.command).toBe("npm test --silent");
    const b = await baseline(detected?.command);
    // With what npm gives the script from package.json (stop 47).
    expect(b.invocation).toEqual({
      runner: "node-test",
      script: "node --test",
      npmEnv: { npm_package_name: "fixture", npm_lifecycle_event: "test", npm_command: "test" },
    });
    expect(b.report?.tests.find((t) => t.id.title === "trim strips spaces")?.status).toBe("fail");
    await fixTrim();
    expect((await verify(detected?.command ?? null, b)).overall_result).toBe("pass");
  });

  describe("when results cannot be parsed per test", () => {
    const script = (code: number) => writeFile(join(dir, "check.sh"), `echo "checked"\nexit ${code}\n`);

    it("passes a suite that stays green, saying it compared exit codes", async () => {
      await script(0);
      const b = await baseline("sh check.sh");
      expect(b.tests).toBeNull();
      const e = await verify("sh check.sh", b);
      expect(e.overall_result).toBe("pass");
      expect(e.summary).toContain("compared by exit code");
    });

    it("fails a suite that was green and is red now", async () => {
      await script(0);
      const b = await baseline("sh check.sh");
      await script(2);
      const e = await verify("sh check.sh", b);
      expect(e.overall_result).toBe("fail");
      expect(e.summary).toContain("red now (exit 2)");
    });

    it("fails honestly when the baseline was red, even if the suite is green now", async () => {
      await script(1);
      const b = await baseline("sh check.sh");
      await script(0);
      const e = await verify("sh check.sh", b);
      expect(e.overall_result).toBe("fail");
      expect(e.summary).toBe("baseline was red and results could not be compared per test");
    });
  });

  /**
   * Regression: an unknown runner's suite that named its tests on base passed on exit code alone
   * once its output named none. Cause: `compare` fell back to exit codes whenever the current run
   * could not be parsed, so a coder could replace the script with `exit 0` (or bury the results
   * past the capture cap) and get "regression passed". Fix: a baseline with named tests is
   * compared per test or fails. Mutation: dropping the `if (baseline.tests)` branch in
   * `compare` turns both cases green (seen red → green and back).
   */
  describe("a baseline that named its tests cannot be matched by exit code alone", () => {
    const greenBase = async () => {
      await fixTrim();
      await writeFile(join(dir, "run.sh"), "node --test\n");
      const b = await baseline("sh run.sh");
      expect(b.exitCode).toBe(0);
      expect(Object.keys(b.tests ?? {})).toHaveLength(3);
      return b;
    };

    it("fails when the suite now prints nothing and exits 0", async () => {
      const b = await greenBase();
      await writeFile(join(dir, "run.sh"), "exit 0\n");
      const e = await verify("sh run.sh", b);
      expect(e.overall_result).toBe("fail");
      expect(e.summary).toContain("named 3 test(s) on base");
      expect(e.summary).toContain("its output names no test");
    });

    it("fails when the output passes the capture cap, saying so", async () => {
      const b = await greenBase();
      // 17 MiB of filler, then the real results, which are never read.
      await writeFile(join(dir, "run.sh"), "head -c 17825792 /dev/zero | tr '\\0' x\nnode --test\n");
      const e = await verify("sh run.sh", b);
      expect(e.overall_result).toBe("fail");
      expect(e.summary).toContain("16 MiB capture cap");
    });
  });

  it("is skipped with a --test-cmd hint when there is no test command", async () => {
    const e = await verify(null, null);
    expect(e.overall_result).toBe("skipped");
    expect(e.summary).toBe(NO_TEST_COMMAND_SUMMARY);
    expect(e.summary).toContain("--test-cmd");
    expect(e.native_payload).toMatchObject({ skip_reason: "no_test_command" });
  });

  // Stop 31: a new babel.config.js rewrote the bug away as jest loaded the code; without a test
  // command regression was skipped and nothing else looked (transform-config-fakes-the-seam.test.ts).
  it("fails without a test command when the attempt changed a runner or transform config", async () => {
    const run = (changedFiles: string[], allowedPaths: string[] = []) =>
      runRegressionVerifier({
        worktree: dir,
        command: null,
        baseline: null,
        timeoutMs: 30_000,
        logPath: join(dir, ".logs", "regression.log"),
        attemptId: "attempt-001",
        changedFiles,
        allowedPaths,
      }).then((e) => RegressionEnvelope.parse(e));
    for (const config of [
      "babel.config.js",
      "src/.babelrc",
      ".babelrc.json",
      ".babelrc.cts",
      ".swcrc",
      "jest.config.ts",
      // Review (stop 32): configs a main config spreads in, and presets.
      "jest.config.base.js",
      "config/jest.config.unit.cjs",
      "jest.preset.js",
      "jest-preset.json",
      "vitest.unit.config.ts",
    ]) {
      const e = await run(["src/slug.js", config]);
      expect(e.overall_result).toBe("fail");
      expect(e.summary).toContain(`the attempt changed ${config} (test runner config)`);
      expect(e.native_payload).toEqual({ command: null, setup_findings: [expect.stringContaining(config)] });
    }
    expect((await run(["src/slug.js"])).overall_result).toBe("skipped");
    expect((await run(["babel.config.js"], ["babel.config.js"])).overall_result).toBe("skipped");
  });

  it("is an error without a baseline", async () => {
    const e = await verify("node --test", null);
    expect(e.overall_result).toBe("error");
    expect(e.summary).toContain("no baseline");
  });

  it("is an error when the baseline was taken with another command", async () => {
    const b = await baseline();
    const e = await verify("node --test calc.test.mjs", b);
    expect(e.overall_result).toBe("error");
    expect(e.summary).toContain("take the baseline again");
  });

  it("is an error when the test command cannot run now", async () => {
    // A console-parsed baseline (no runner pinned), so the command itself is run again.
    const b = { ...(await baseline()), command: "devflow-no-such-runner", invocation: null, report: null };
    const e = await verify("devflow-no-such-runner", b);
    expect(e.overall_result).toBe("error");
    expect(e.summary).toContain("could not run");
  });

  it("is an error when the suite times out", async () => {
    const b = { ...(await baseline()), command: "sleep 30", invocation: null, report: null };
    const e = RegressionEnvelope.parse(
      await runRegressionVerifier({
        worktree: dir,
        command: "sleep 30",
        baseline: b,
        timeoutMs: 300,
        logPath: join(dir, ".logs", "r.log"),
        attemptId: "attempt-001",
      }),
    );
    expect(e.overall_result).toBe("error");
    expect(e.summary).toContain("timed out");
  });

  it("does not pass a red suite when the baseline could not run", async () => {
    const b = { ...(await baseline("devflow-no-such-runner")), command: "node --test" };
    await unlink(join(dir, "calc.mjs"));
    const e = await verify("node --test", b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("baseline could not run");
  });
});

describe("the test setup the attempt may not change", () => {
  const pkg = (test: string) =>
    writeFile(join(dir, "package.json"), JSON.stringify({ name: "f", private: true, scripts: { test } }));
  const run = (
    b: RegressionBaseline,
    changedFiles: string[],
    allowedPaths: string[] = [],
    command = "npm test --silent",
  ) =>
    runRegressionVerifier({
      worktree: dir,
      command,
      baseline: b,
      timeoutMs: 30_000,
      logPath: join(dir, ".logs", "regression.log"),
      attemptId: "attempt-001",
      changedFiles,
      allowedPaths,
    }).then((e) => RegressionEnvelope.parse(e));

  it("runs the base's pinned script, not the attempt's, and fails on the changed scripts", async () => {
    await pkg("node --test");
    const b = await baseline("npm test --silent");
    await fixTrim();
    await writeFile(
      join(dir, "calc.mjs"),
      "export const add = () => 0;\nexport const trim = (s) => s.trim();\n",
    );
    await pkg("exit 0");
    const e = await run(b, ["calc.mjs", "package.json"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("test setup in package.json");
    expect(e.summary).toContain("calc.test.mjs > add works (fail)");
    expect(e.native_payload).toMatchObject({ ran_command: expect.stringContaining("node --test") });
  });

  it("fails on a changed .npmrc unless the task's scope names it exactly", async () => {
    await pkg("node --test");
    const b = await baseline("npm test --silent");
    await fixTrim();
    await writeFile(join(dir, ".npmrc"), "node-options=--require ./x.cjs\n");
    expect((await run(b, ["calc.mjs", ".npmrc"])).summary).toContain("the attempt changed .npmrc");
    expect((await run(b, ["calc.mjs", ".npmrc"], ["src/"])).overall_result).toBe("fail");
    expect((await run(b, ["calc.mjs", ".npmrc"], [".npmrc"])).overall_result).toBe("pass");
  });

  // Review (stop 41): regression ran the attempt's Makefile under `make test`; a recipe rewritten to
  // print passing lines passed with `add` broken. A file saying what the command runs is test setup.
  it("fails on a changed Makefile under `make test` unless the scope names it", async () => {
    await writeFile(join(dir, "Makefile"), "test:\n\tnode --test\n");
    const b = await baseline("make -s test");
    expect(Object.keys(b.tests ?? {})).toContain("add works");
    await writeFile(
      join(dir, "calc.mjs"),
      "export const add = () => 0;\nexport const trim = (s) => s.trim();\n",
    );
    const printed = ["add works", "add is commutative", "trim strips spaces"].map(
      (name, i) => `\t@echo 'ok ${i + 1} - ${name}'`,
    );
    await writeFile(join(dir, "Makefile"), `test:\n${printed.join("\n")}\n`);
    const make = (changedFiles: string[], allowedPaths: string[] = []) =>
      run(b, changedFiles, allowedPaths, "make -s test");
    const e = await make(["calc.mjs", "Makefile"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain(
      "the attempt changed Makefile, which says what the test command `make -s test` runs",
    );
    expect(e.native_payload).toMatchObject({ findings: [expect.stringContaining("Makefile")] });
    // Named by the scope, the change is the task's: no finding (the printed lines then pass).
    expect((await make(["calc.mjs", "Makefile"], ["Makefile"])).native_payload).not.toHaveProperty(
      "findings",
    );
  });

  // Second review (stop 41): `npm test --silent`, devflow's default for a Node project, whose script
  // runs `make test`: the Makefile was not followed, and the same rewritten recipe passed.
  it("follows `npm test` to the Makefile its script runs", async () => {
    await pkg("make -s test");
    await writeFile(join(dir, "Makefile"), "test:\n\tnode --test\n");
    const b = await baseline("npm test --silent");
    await writeFile(
      join(dir, "calc.mjs"),
      "export const add = () => 0;\nexport const trim = (s) => s.trim();\n",
    );
    await writeFile(join(dir, "Makefile"), "test:\n\t@echo 'ok 1 - add works'\n");
    const e = await run(b, ["calc.mjs", "Makefile"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("the attempt changed Makefile, which says what the test command");
  });

  // Review (stop 41): pytest reads pyproject.toml with tomllib; a section header spelled
  // `["tool".pytest.ini_options]` loading the program as a plugin that passes every test was
  // pytest's configuration, devflow's header search saw none on either side, and regression passed.
  it("fails on a pytest section added to pyproject.toml in a spelling only TOML reads", async () => {
    await writeFile(join(dir, "calc.py"), "def mul(a, b):\n    return a * b\n");
    await mkdir(join(dir, "tests"));
    await writeFile(
      join(dir, "tests", "test_calc.py"),
      "from calc import mul\n\ndef test_mul():\n    assert mul(3, 4) == 12\n",
    );
    await writeFile(join(dir, "setup.cfg"), "[tool:pytest]\npythonpath = .\n");
    const b = await baseline("python3 -m pytest -p no:cacheprovider tests");
    expect(b.report?.tests.map((t) => t.status)).toEqual(["pass"]);
    await writeFile(
      join(dir, "calc.py"),
      "def mul(a, b):\n    return a + b\n\ndef pytest_pyfunc_call(pyfuncitem):\n    return True\n",
    );
    await writeFile(
      join(dir, "pyproject.toml"),
      '["tool".pytest.ini_options]\npythonpath = ["."]\naddopts = "-p calc"\n',
    );
    const e = await run(b, ["calc.py", "pyproject.toml"], [], "python3 -m pytest -p no:cacheprovider tests");
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("the attempt changed pytest's configuration in pyproject.toml");
  });

  it("a package.json change that leaves the test setup alone is no finding", async () => {
    await pkg("node --test");
    const b = await baseline("npm test --silent");
    await fixTrim();
    const text = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
    await writeFile(join(dir, "package.json"), JSON.stringify({ ...text, version: "1.0.1" }));
    expect((await run(b, ["calc.mjs", "package.json"])).overall_result).toBe("pass");
  });

  // Review (stop 32): only the root package.json was compared; a workspace package's `jest` key
  // (read by jest's `projects`, or when tests run from that folder) could change unchecked.
  it("fails on a workspace package.json whose test setup changed, not on one whose other keys did", async () => {
    await pkg("node --test");
    const write = (path: string, json: object) =>
      mkdir(join(dir, path, ".."), { recursive: true }).then(() =>
        writeFile(join(dir, path), JSON.stringify(json)),
      );
    await write("packages/a/package.json", { name: "a", jest: { testEnvironment: "node" } });
    await write("packages/b/package.json", { name: "b" });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const b = await baseline("npm test --silent");
    expect(b.packageConfigs).toContain("packages/a/package.json");
    await fixTrim();
    await write("packages/b/package.json", { name: "b", version: "2.0.0" });
    await write("packages/c/package.json", { name: "c" });
    expect(
      (await run(b, ["calc.mjs", "packages/b/package.json", "packages/c/package.json"])).overall_result,
    ).toBe("pass");
    await write("packages/a/package.json", {
      name: "a",
      jest: { moduleNameMapper: { "^x$": "<rootDir>/y.js" } },
    });
    await write("packages/d/package.json", { name: "d", scripts: { test: "exit 0" } });
    const e = await run(b, ["calc.mjs", "packages/a/package.json", "packages/d/package.json"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("the attempt changed the test setup in packages/a/package.json");
    expect(e.summary).toContain("the attempt changed the test setup in packages/d/package.json");
    expect(
      (await run(b, ["calc.mjs", "packages/a/package.json"], ["packages/a/package.json"])).overall_result,
    ).toBe("pass");
  });
});
