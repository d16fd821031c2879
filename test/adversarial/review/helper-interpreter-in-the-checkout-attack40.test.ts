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
 * Real pytest, a real repo, the real lane with a `command:` coder and a lenient critic.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { coderScript, runLane, withLenientCritic } from "../../support/lane-harness.js";
import { SLUG_PATCH } from "../../support/python-fakes.js";
import { SLUG_REQUEST, slugCassette, slugPythonRepo } from "../../support/runner-lane.js";

const WRAPPER = '#!/bin/sh\nexec python3 "$@"\n';

it("a rewritten committed .venv/bin/python is never run by devflow outside the seal", {
  timeout: 300_000,
}, async () => {
  const repo = await slugPythonRepo({ ".venv/bin/python": WRAPPER });
  execFileSync("chmod", ["+x", join(repo, ".venv/bin/python")]);
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "x"], {
    cwd: repo,
  });
  const marker = join(repo, "RAN-UNCONFINED");
  const hostile = `#!/bin/sh\necho ran > ${JSON.stringify(marker)} 2>/dev/null\nexec python3 "$@"\n`;
  const coder = `
import { chmodSync, writeFileSync } from "node:fs";
writeFileSync(".venv/bin/python", ${JSON.stringify(hostile)});
chmodSync(".venv/bin/python", 0o755);
writeFileSync("slugtools.py", ${JSON.stringify(`${SLUG_PATCH.join("\n")}\n`)});
console.log("Runs of whitespace become one dash.");
`;
  const run = await runLane({
    repo,
    taskId: "slug-spaces",
    request: SLUG_REQUEST,
    cassette: withLenientCritic(
      slugCassette(".venv/bin/python -m pytest tests/test_slug.py", ["tests/test_slug.py"]),
    ),
    coder: coderScript(coder),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
  });
  expect(run.error).toBeNull();
  expect(existsSync(marker), "the attempt's interpreter ran outside the seal").toBe(false);
  const record = await run.store.read("iterator_run");
  expect(record?.terminal?.verdict, record?.terminal?.reason).not.toBe("completed");
});
