/**
 * Attacks 54e and 55 against pytest (stop 50; jest, vitest, mocha and tape in their own files).
 *
 * Cause: pytest wrote its JUnit XML (`--junitxml=<file>`) into `<log>.out/`, the directory the run
 * may write. The attempt fixes `add`, breaks `mul`, and adds a test module that starts a detached
 * watcher: as soon as pytest's report lands there it takes the failure out of `test_mul` (the
 * canary's failure, devflow's nonce in it, stays as it is) and writes it back, before devflow reads
 * it.
 *
 * Fix: devflow's plugin (src/verify/pytest-plugin/devflow_report_channel.py, `-p`) connects to
 * devflow's report channel when pytest imports it, before any conftest.py or test module, takes the
 * address out of the environment, and sends the XML pytest's junitxml plugin writes over that
 * connection instead of to the file. The cases:
 * - file route: the watcher finds nothing of pytest's to rewrite, and devflow writes the report
 *   after the run: `mul` fails by name;
 * - channel route: the watcher finds the address in pytest's /proc environ and sends a report of
 *   its own: a second connection is tampering;
 * - kill route (attack 55's class): the new module's top-level code, run at collection, starts a
 *   process that sends a report and kills pytest: the plugin connected first, so tampering.
 * The file route once more with `PYTHONPATH=. pytest` (stop 51): such a script used to keep the file.
 * Mutations, each turning a case red: pytest back on its file (the file route reads `pass`); the
 * folder not appended to a script's own PYTHONPATH (its file route reads `pass`); the
 * plugin connecting only when the session ends (the kill route is no longer tampering: the canary,
 * which the forger did not forge, still keeps it from passing).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  baselineIn,
  FIX_ADD_BREAK_MUL,
  PYTEST_CALC,
  regressionIn,
  writeFiles,
} from "../../support/regression-project.js";
import { OWN_ADDRESS, reportDirsSource } from "../../support/report-attackers.js";

const COMMAND = "python3 -m pytest -p no:cacheprovider tests";

/**
 * The file route's watcher: rewrites pytest's report in the run's report directories (the `.out`
 * mounts of the mount table, and `reportDir`) with `test_mul`'s failure taken out, as soon as one
 * holds it. Says "attacked" once it watches.
 */
const fileWatcher = (reportDir: string) => String.raw`
const fs = require("node:fs");
${reportDirsSource([reportDir])}
const rewrite = (dir) => {
  try {
    const text = fs.readFileSync(dir + "/report", "utf8");
    const forged = text.replace(/(<testcase [^>]*name="test_mul"[^>]*>)[\s\S]*?<\/testcase>/, "$1</testcase>");
    if (forged !== text) fs.writeFileSync(dir + "/report", forged);
  } catch {}
};
for (const dir of dirs) try { fs.watch(dir, () => rewrite(dir)); } catch {}
(function poll() { for (const dir of dirs) rewrite(dir); setTimeout(poll, 5); })();
setTimeout(() => process.exit(0), 30000);
console.log("attacked");
`;

/** The channel route's watcher: sends a report of its own over devflow's channel. */
const CHANNEL_SENDER = `
const net = require("node:net");
${OWN_ADDRESS}
const address = ancestorAddress();
if (!address) { console.log("no address"); process.exit(0); }
const socket = net.connect(socketOf(address));
socket.on("error", (e) => { console.log(e.message); process.exit(0); });
socket.end("<testsuites/>", () => { console.log("attacked"); process.exit(0); });
`;

/** A test module whose test starts `source` detached and fails unless it says "attacked". */
const watcherModule = (source: string) => `import subprocess


def test_environment_is_ready():
    child = subprocess.Popen([${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(source)}], stdout=subprocess.PIPE, start_new_session=True)
    assert child.stdout.readline().decode().strip() == "attacked"
`;

/** A test module whose import (at collection) has a report sent over the channel and pytest killed. */
const killerModule = () => {
  const killer = `
const net = require("node:net");
${OWN_ADDRESS}
const pytest = Number(process.argv[1]);
const address = ancestorAddress();
if (!address) process.exit(0);
const socket = net.connect(socketOf(address));
socket.on("error", () => process.exit(0));
socket.end("<testsuites/>", () => setTimeout(() => { process.kill(pytest, "SIGKILL"); process.exit(0); }, 300));
`;
  return `import os
import subprocess
import time

subprocess.Popen([${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(killer)}, str(os.getpid())], start_new_session=True)
time.sleep(20)


def test_environment_is_ready():
    pass
`;
};

type Route = "file" | "channel" | "kill";

async function attack(route: Route | null, command = COMMAND) {
  const dir = await mkdtemp(join(tmpdir(), "devflow-attack54-pytest-"));
  try {
    await writeFiles(dir, PYTEST_CALC);
    const logDir = `${dir}-logs`;
    const base = await baselineIn(dir, command, ["tests/test_add.py"], { logDir });
    expect(base.error, base.error ?? "").toBeNull();
    await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
    if (route !== null)
      await writeFile(
        join(dir, "tests/test_zz_env.py"),
        route === "kill"
          ? killerModule()
          : watcherModule(
              route === "file" ? fileWatcher(join(logDir, "regression.log.out")) : CHANNEL_SENDER,
            ),
      );
    const changed = route === null ? ["calc.py"] : ["calc.py", "tests/test_zz_env.py"];
    return await regressionIn(dir, base, command, "tests/test_add.py", changed, { logDir });
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}-logs`, { recursive: true, force: true });
  }
}

describe("attacks 54e and 55 against pytest's report", () => {
  it("file route: pytest's report rewritten where the report file went does not count", async () => {
    const run = await attack("file");
    console.log("pytest attack54e (file):", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("test_mul (fail)");
    expect(run.summary, "the watcher attacked").not.toContain("test_environment_is_ready");
  }, 240_000);

  // Stop 51: a script setting its own PYTHONPATH could not import devflow's plugin, so pytest
  // still wrote its file there and the watcher's rewrite passed the broken `mul`. pytest now starts
  // under a shell that appends devflow's folder to the script's own PYTHONPATH.
  it("file route, a script setting its own PYTHONPATH: the rewrite does not count either", async () => {
    const run = await attack("file", `PYTHONPATH=. ${COMMAND}`);
    console.log("pytest attack54e (file, own PYTHONPATH):", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("test_mul (fail)");
    expect(run.summary, "the watcher attacked").not.toContain("test_environment_is_ready");
  }, 240_000);

  it.for(["channel", "kill"] as const)(
    "%s route: a report sent over devflow's channel is tampering",
    { timeout: 240_000 },
    async (route) => {
      const run = await attack(route);
      console.log(
        `pytest attack${route === "kill" ? "55" : "54e"} (${route}):`,
        run.overall_result,
        run.summary,
      );
      expect(run.overall_result, run.summary).toBe("error");
      expect(run.summary).toContain("2 connections reached devflow's report channel");
    },
  );

  it("(control) the break without an attack fails naming test_mul", async () => {
    const run = await attack(null);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("test_mul (fail)");
  }, 240_000);
});
