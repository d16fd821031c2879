/**
 * Hostile review (attack 44b, of ADR 0080): FALSE REJECTION of a correct fix.
 *
 * ADR 0080 makes "a non-seam test failing now that did not fail on base" a regression, and counts a
 * test base never reached as "did not fail" (compare-reports.ts `compareReports`, new_failures;
 * regression.ts `comparePerTest`). Its stated motive is a base run that stops at its first failure
 * (`pytest -x`, `--maxfail`, `mocha --bail`, ...) on a red base. But exactly that setting turns a
 * correct fix into a rejection: on base the run stops at the seam's own failing test, so a test
 * that is ALREADY broken on base and sorts after it is never run there; the correct fix makes the
 * seam pass, the run now goes on, reaches that pre-existing failure, and devflow reports it as
 * "1 test(s) fail now that did not fail on base" — which is false: it fails on base too, base just
 * never looked. ADR 0080's consequences list only unstable test names as a false-rejection risk.
 *
 * Realism: the ADR itself says a red base is the common case and names `-x`/`--bail` as suite
 * options devflow keeps; a repository with a known-broken (or confinement-dependent, e.g. network)
 * test plus `addopts = -x` (or `.mocharc` `bail: true`) is ordinary. The coder here only fixes
 * slug.py, correctly; nothing else changes. The control (same repo without `-x`) completes.
 *
 * Fixed (stop 44, ADR 0083): devflow's pytest plugin, loaded into regression's runs on base and on
 * the attempt alike, undoes `-x`/`--maxfail`/`--sw`, so base's run reaches the known-broken test
 * and it is "still failing as on base". The `-x` case was pinned with `it.fails` until then.
 * Run: DEVFLOW_LANE_PARALLEL=2 npx vitest run test/adversarial/review/bail-red-base-rejects-correct-fix-attack44b.test.ts
 */
import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "../../support/concurrency-limit.js";
import { coderScript, runLane, withLenientCritic } from "../../support/lane-harness.js";
import { attemptEnvelope, SLUG_REQUEST, slugCassette, slugPythonRepo } from "../../support/runner-lane.js";

const CORRECT_FIX = `
import { writeFileSync } from "node:fs";
writeFileSync("slug.py", "import re\\n\\n\\ndef slugify(text):\\n    return re.sub(r'\\\\s+', '-', text.strip().lower())\\n");
console.log("Runs of whitespace become one dash.");
`;

/** A test already broken on base (a known bug tracked elsewhere, or one that needs the network). */
const KNOWN_BROKEN = [
  "import socket",
  "",
  "",
  "def test_reaches_the_mirror():",
  "    socket.create_connection(('192.0.2.1', 80), timeout=0.5).close()",
  "",
].join("\n");

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

async function lane(pytestIni: string, extra: Record<string, string> = {}) {
  const run = await runLane({
    repo: await slugPythonRepo({
      "pytest.ini": pytestIni,
      "tests/test_zz_mirror.py": KNOWN_BROKEN,
      ...extra,
    }),
    taskId: "slug-spaces",
    request: SLUG_REQUEST,
    cassette: withLenientCritic(slugCassette("python3 -m pytest tests/test_slug.py", ["tests/test_slug.py"])),
    coder: coderScript(CORRECT_FIX),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
  });
  expect(run.error).toBeNull();
  const record = await run.store.read("iterator_run");
  const regression = await attemptEnvelope(run, "regression");
  return {
    verdict: record?.terminal?.verdict,
    why: `${record?.terminal?.reason}\nregression: ${regression?.summary}`,
  };
}

describe.concurrent("a correct fix on a red base whose suite stops at its first failure (attack 44b)", () => {
  it("control: without -x the correct fix completes", { timeout: 300_000 }, () =>
    limited(async () => {
      const { verdict, why } = await lane("[pytest]\npythonpath = .\n");
      expect(verdict, why).toBe("completed");
    }),
  );
  it("with addopts = -x the correct fix completes too", { timeout: 300_000 }, () =>
    limited(async () => {
      const { verdict, why } = await lane("[pytest]\npythonpath = .\naddopts = -x\n");
      expect(verdict, why).toBe("completed");
      expect(why).toContain("still failing as on base: tests/test_zz_mirror.py");
    }),
  );
});
