import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  baselineIn,
  GOOD_CALC,
  PYTEST_CALC,
  regressionIn,
  writeFiles,
} from "../../test/support/regression-project.js";
import type { RegressionEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import type { RegressionBaseline } from "./regression.js";

/**
 * Regression's pytest canary (ADR 0079) under pytest-xdist (`-n 2`), with real runs: the canary
 * runs in a worker, and its failure must stay out of the count of the controller, which sets the
 * exit status, as it does without xdist. ADR 0079 recorded this as untested (xdist was not
 * installed here) and assumed the controller's count was weaker; these runs show it is not.
 * xdist comes from Debian's python3-pytest-xdist for the system interpreter (`.ci/run` installs it;
 * PyPI is not reachable here), so the runs name /usr/bin/python3 rather than the suite's venv.
 */
const PYTHON = "/usr/bin/python3";
const COMMAND = `${PYTHON} -m pytest -n 2 -p no:cacheprovider tests`;

beforeAll(() => {
  try {
    execFileSync(PYTHON, ["-c", "import xdist, pytest"], { stdio: "ignore" });
  } catch {
    throw new Error(
      `${PYTHON} has no pytest-xdist: install Debian's python3-pytest-xdist (apt-get install python3-pytest-xdist), as .ci/run does`,
    );
  }
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-regression-xdist-"));
  await writeFiles(dir, { ...PYTEST_CALC, "calc.py": GOOD });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GOOD = GOOD_CALC;
const baseline = () => baselineIn(dir, COMMAND, ["tests/test_add.py"]);
const regression = (b: RegressionBaseline) => regressionIn(dir, b, COMMAND, "tests/test_add.py", ["calc.py"]);

const canaryOf = (e: RegressionEnvelope) => (e.native_payload as { canary?: { status: string } }).canary;

describe("regression's pytest canary under pytest-xdist", () => {
  it("is placed on a green base whose exit status stays 0, and a green attempt passes", async () => {
    const b = await baseline();
    expect(b.canary).toEqual({ status: "placed", next_to: "tests/test_add.py" });
    // The canary failed in a worker; the controller's exit status is still the suite's.
    expect(b.exitCode).toBe(0);
    const e = await regression(b);
    expect(e.overall_result).toBe("pass");
    expect(canaryOf(e)?.status).toBe("failed_as_required");
    expect((e.native_payload as { exit_code: number }).exit_code).toBe(0);
  });

  it("fails a green base gone red through a session-end failure no test reports", async () => {
    const b = await baseline();
    // No test fails; the run's exit status does. Only the controller's count can show it.
    await writeFile(
      join(dir, "tests", "conftest.py"),
      "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 3\n",
    );
    const e = await regression(b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("green on base (exit 0) and is red now (exit 3)");
  });

  it("fails as tampered when program code turns every test call into a no-op in the workers", async () => {
    await writeFile(join(dir, "calc.py"), GOOD.replace("return a + b", "return a - b"));
    const b = await baseline();
    expect(b.exitCode).toBe(1);
    await writeFile(
      join(dir, "calc.py"),
      `import _pytest.python\n${GOOD.replace("return a * b", "return a + b")}_pytest.python.Function.runtest = lambda self: None\n`,
    );
    const e = await regression(b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toMatch(/^tamper: the regression run cannot fail: the canary test "[^"]+" passed/);
    expect(canaryOf(e)?.status).toBe("tampered");
  });

  it("fails naming a test the attempt broke, the canary failing as required", async () => {
    await writeFile(join(dir, "calc.py"), GOOD.replace("return a + b", "return a - b"));
    const b = await baseline();
    await writeFile(join(dir, "calc.py"), GOOD.replace("return a * b", "return a + b"));
    const e = await regression(b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("tests/test_mul.py > pytest > tests.test_mul > test_mul (fail)");
    expect(canaryOf(e)?.status).toBe("failed_as_required");
  });

  it("`-x` under `-n 2` on a red base: the controller does not stop at the seam's failing test (ADR 0083)", async () => {
    await writeFile(join(dir, "calc.py"), GOOD.replace("return a + b", "return a - b"));
    // Enough tests that xdist's controller, told to stop after one failure, leaves most unrun.
    const slow = Array.from({ length: 20 }, (_, i) => `def test_later_${i}():\n    time.sleep(0.05)\n`);
    await writeFile(join(dir, "tests", "test_later.py"), `import time\n\n\n${slow.join("\n\n")}`);
    const b = await baselineIn(dir, COMMAND.replace("-n 2", "-n 2 -x"), ["tests/test_add.py"]);
    expect(b.canary?.status).toBe("placed");
    const statuses = (b.report?.tests ?? []).map((t) => t.status);
    expect(statuses.filter((s) => s === "pass")).toHaveLength(21);
    expect(statuses.filter((s) => s === "fail")).toHaveLength(1);
  });
});
