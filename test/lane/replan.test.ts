import { expect, it } from "vitest";
import { VerifierEnvelope } from "../../src/artifacts/schemas/index.js";
import { CORRECT_FIX, coderScript, planInvalidCassette, runLane } from "../support/lane-harness.js";

it("plan_invalid in an interactive run asks to re-plan; the answer re-frames the same task (r2) and attempts continue", async () => {
  const asked: string[] = [];
  const run = await runLane({
    cassette: planInvalidCassette(),
    coder: coderScript(CORRECT_FIX),
    onQuestions: async (q) => {
      asked.push(q.kind);
      return "Files may start with a UTF-8 BOM; only emails need trimming.";
    },
  });
  expect(run.error).toBeNull();
  expect(asked).toEqual(["replan"]);
  expect(run.result?.terminal.verdict).toBe("completed");
  expect((await run.store.read("task_artifact"))?.revision).toBe(2);
  const iterator = await run.store.read("iterator_run");
  expect(iterator?.attempts.map((a) => a.attempt_id)).toEqual(["attempt-001", "attempt-002"]);
  expect(iterator?.readiness?.cites.task_artifact_revision).toBe(2);
  expect(iterator?.state_history.some((s) => /re-plan 1 of 2 approved/.test(s.reason))).toBe(true);
});

it("plan_invalid without an approval channel blocks with the reason", async () => {
  const run = await runLane({ cassette: planInvalidCassette(), coder: coderScript(CORRECT_FIX) });
  expect(run.result?.terminal.verdict).toBe("blocked");
  expect(run.result?.terminal.reason).toMatch(/plan_invalid/);
});

/**
 * Regression (review, stop 41; pinned stop 42). Cause: after a re-plan the seam tree holds the
 * earlier attempts' changes, and regression's test-setup check was given the files changed since
 * that tree. A test setup change the first plan's scope named exactly was kept into the second
 * plan, whose scope no longer names it, and nothing saw it. Fix: the verify node gives regression
 * the files changed since base, as it gives the scope check.
 */
it("a test setup change the first plan's scope named fails regression once the re-plan's scope does not name it", async () => {
  const cassette = planInvalidCassette();
  const [first, second] = cassette.calls.framer ?? [];
  if (!first || !second || !("structured" in first) || !("structured" in second))
    throw new Error("demo cassette changed shape");
  const scoped = (paths: string[]) => ({
    structured: {
      ...first.structured,
      scope_boundary: { ...(first.structured.scope_boundary as object), allowed_paths: paths },
    },
  });
  // Named exactly by the first plan; the second's glob allows the file but names no setup file.
  cassette.calls.framer = [
    scoped(["src/csv-import.js", "package.json"]),
    scoped(["src/csv-import.js", "*.json"]),
  ];
  const coder = coderScript(`${CORRECT_FIX}
const pkg = JSON.parse(readFileSync("package.json", "utf8"));
pkg.scripts = { ...pkg.scripts, pretest: "true" };
writeFileSync("package.json", JSON.stringify(pkg, null, 2) + "\\n");
`);
  const run = await runLane({
    cassette,
    coder,
    onQuestions: async () => "Files may start with a UTF-8 BOM; only emails need trimming.",
  });
  const second_attempt = await run.store.readAttemptJson(
    "attempt-002",
    "verifiers/regression.json",
    VerifierEnvelope,
  );
  expect(second_attempt?.overall_result).toBe("fail");
  expect(second_attempt?.summary).toContain("package.json");
  expect(run.result?.terminal.verdict).not.toBe("completed");
});
