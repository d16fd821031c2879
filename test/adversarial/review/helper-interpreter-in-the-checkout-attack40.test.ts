/**
 * Regression (stop 40, found while reviewing ADR 0076): devflow asks the seam's Python questions of
 * its own, outside the seal: which module names it loads from outside the checkout
 * (`pythonShadowFindings`) and what the loaded files import (`outsideNamedLoads`). The interpreter
 * was the seam command's, resolved from the verification checkout: with a seam
 * `.venv/bin/python -m pytest …` and a committed `.venv/bin/python`, an attempt that rewrote that
 * file (and added any root module, so the question was asked) had its script run by devflow with
 * no seal, before any verdict: it could write to the user's repository.
 * Fix: `helperInterpreter` (src/verify/python-shadows.ts) asks `python3` instead whenever the
 * interpreter is a file of the checkout. Mutation: `helperInterpreter` returning the seam's
 * interpreter → the marker file appears in the user's repository.
 * Its review (stop 40) ran the attempt's code unconfined once more: a committed venv whose
 * `bin/python` is a link out to the real interpreter (as `python -m venv` makes it) was judged by its
 * real path only, yet Python started by the link's path reads the venv's `pyvenv.cfg` and ran a
 * `.pth` the attempt put in its site-packages. Fixed: the interpreter is judged as named too.
 * A third review (read-only) ran one more by experiment: a committed `.venv/bin/pytest` whose `#!`
 * the attempt pointed at a script in the coder's own checkout (not the verification checkout).
 * Fixed: the seam's program must be out of the attempt's reach too, and the coder's checkout and
 * devflow's home in the repository are in its reach.
 * Real pytest, a real repo, the real lane with a `command:` coder and a lenient critic.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { coderScript, runLane, withLenientCritic } from "../../support/lane-harness.js";
import { SLUG_PATCH } from "../../support/python-fakes.js";
import { SLUG_REQUEST, slugCassette, slugPythonRepo } from "../../support/runner-lane.js";

const VENV_SEAM = ".venv/bin/python -m pytest tests/test_slug.py";

/** Runs `coder` on the slug repo `repo` with `seam` (by default `.venv/bin/python -m pytest …`). */
async function laneWithVenvSeam(repo: string, coder: string, seam = VENV_SEAM) {
  const run = await runLane({
    repo,
    taskId: "slug-spaces",
    request: SLUG_REQUEST,
    cassette: withLenientCritic(slugCassette(seam, ["tests/test_slug.py"])),
    coder: coderScript(coder),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
  });
  expect(run.error).toBeNull();
  return run;
}

/** The lane with `coder` left no `marker` in the user's repository (the seal keeps it out) and did not complete. */
async function expectNothingRanUnconfined(repo: string, coder: string, marker: string, seam = VENV_SEAM) {
  const run = await laneWithVenvSeam(repo, coder, seam);
  expect(existsSync(marker), "code the attempt wrote ran outside the seal").toBe(false);
  const record = await run.store.read("iterator_run");
  expect(record?.terminal?.verdict, record?.terminal?.reason).not.toBe("completed");
}

const commitAll = (repo: string) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "x"], {
    cwd: repo,
  });

/** A pytest launcher as pip writes it, with its `#!` line. */
const pytestLauncher = (shebang: string) =>
  `${shebang}\nimport sys\nfrom pytest import console_main\nsys.exit(console_main())\n`;

const WRAPPER = '#!/bin/sh\nexec python3 "$@"\n';

it("a rewritten committed .venv/bin/python is never run by devflow outside the seal", {
  timeout: 300_000,
}, async () => {
  const repo = await slugPythonRepo({ ".venv/bin/python": WRAPPER });
  execFileSync("chmod", ["+x", join(repo, ".venv/bin/python")]);
  commitAll(repo);
  const marker = join(repo, "RAN-UNCONFINED");
  const hostile = `#!/bin/sh\necho ran > ${JSON.stringify(marker)} 2>/dev/null\nexec python3 "$@"\n`;
  const coder = `
import { chmodSync, writeFileSync } from "node:fs";
writeFileSync(".venv/bin/python", ${JSON.stringify(hostile)});
chmodSync(".venv/bin/python", 0o755);
writeFileSync("slugtools.py", ${JSON.stringify(`${SLUG_PATCH.join("\n")}\n`)});
console.log("Runs of whitespace become one dash.");
`;
  await expectNothingRanUnconfined(repo, coder, marker);
});

it("a .pth written into a committed venv (bin/python a link out, as venv makes it) never runs outside the seal", {
  timeout: 300_000,
}, async () => {
  const [executable, version] = execFileSync(
    "python3",
    ["-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"],
    {
      encoding: "utf8",
    },
  )
    .trim()
    .split("\n") as [string, string];
  const repo = await slugPythonRepo({
    ".venv/pyvenv.cfg": `home = ${dirname(executable)}\ninclude-system-site-packages = true\n`,
    [`.venv/lib/python${version}/site-packages/.keep`]: "",
  });
  mkdirSync(join(repo, ".venv/bin"), { recursive: true });
  symlinkSync(executable, join(repo, ".venv/bin/python"));
  execFileSync("git", ["add", "-A"], { cwd: repo });
  commitAll(repo);
  const marker = join(repo, "RAN-UNCONFINED");
  const pth = `import os; exec("try:\\n open('${marker}', 'a').write('ran')\\nexcept Exception: pass")\n`;
  const coder = `
import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(`.venv/lib/python${version}/site-packages/zz.pth`)}, ${JSON.stringify(pth)});
writeFileSync("slugtools.py", ${JSON.stringify(`${SLUG_PATCH.join("\n")}\n`)});
console.log("Runs of whitespace become one dash.");
`;
  await expectNothingRanUnconfined(repo, coder, marker);
});

it("a committed pytest script whose #! the attempt points into the coder's checkout is never run outside the seal", {
  timeout: 300_000,
}, async () => {
  const repo = await slugPythonRepo({ ".venv/bin/pytest": pytestLauncher("#!/usr/bin/env python3") });
  execFileSync("chmod", ["+x", join(repo, ".venv/bin/pytest")]);
  commitAll(repo);
  const marker = join(repo, "RAN-UNCONFINED");
  const hostile = `#!/bin/sh\necho ran > ${JSON.stringify(marker)} 2>/dev/null\nexec python3 "$@"\n`;
  const coder = `
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
mkdirSync("tools");
writeFileSync("tools/python3", ${JSON.stringify(hostile)});
chmodSync("tools/python3", 0o755);
const launcher = ${JSON.stringify(pytestLauncher("#!SHEBANG"))};
writeFileSync(".venv/bin/pytest", launcher.replace("SHEBANG", process.cwd() + "/tools/python3"));
chmodSync(".venv/bin/pytest", 0o755);
writeFileSync("slugtools.py", ${JSON.stringify(`${SLUG_PATCH.join("\n")}\n`)});
console.log("Runs of whitespace become one dash.");
`;
  await expectNothingRanUnconfined(repo, coder, marker, ".venv/bin/pytest tests/test_slug.py");
});
