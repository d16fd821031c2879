/**
 * Issue 11 leftover, "a bad DEVFLOW_MAX_IDLE_CODER_CHECKOUTS is reported only at the end of a run":
 * the lane reads that limit when a finished task's coder checkout is retired, so `abc` there let a
 * whole run (checkouts, coder, tests) happen before the BAD_OPTION line.
 * Fix (src/lanes/iterate/idle-limits-env.ts): iterate, plan, chat and daemon read every
 * `DEVFLOW_MAX_IDLE_*` first: exit 2, one line naming the variable, nothing made in the repository.
 * The real bin in child processes, a real repository.
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { runDevflow } from "../faults/cli-process.js";

/** One actionable line naming the variable; nothing of devflow's made in the repository. */
function refusedAtStart(run: { code: number | null; stderr: string }, name: string, repo: string): void {
  expect(run.code, run.stderr).toBe(2);
  const lines = run.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`${name} must be a whole number ≥ 0 (got "abc")`);
  expect(existsSync(join(repo, ".devflow", "worktrees"))).toBe(false);
  expect(existsSync(join(repo, ".devflow", "iterate"))).toBe(false);
}

describe("a bad DEVFLOW_MAX_IDLE_* fails the command at its start (exit 2, one line)", () => {
  for (const name of ["DEVFLOW_MAX_IDLE_CODER_CHECKOUTS", "DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS"]) {
    it(`devflow iterate with ${name}=abc`, async () => {
      const repo = createFixtureRepo("csv-import");
      const run = await runDevflow(
        ["iterate", "-r", repo, "--coder", "command:true", "--no-input", "add a line"],
        { [name]: "abc" },
      );
      refusedAtStart(run, name, repo);
    });
  }

  it("devflow plan with DEVFLOW_MAX_IDLE_CODER_CHECKOUTS=abc", async () => {
    const repo = createFixtureRepo("csv-import");
    const run = await runDevflow(["plan", "-r", repo, "--yes", "add a feature"], {
      DEVFLOW_MAX_IDLE_CODER_CHECKOUTS: "abc",
    });
    refusedAtStart(run, "DEVFLOW_MAX_IDLE_CODER_CHECKOUTS", repo);
    expect(existsSync(join(repo, ".devflow", "idea"))).toBe(false);
  });

  it("devflow daemon with DEVFLOW_MAX_IDLE_CODER_CHECKOUTS=abc: refused before it takes its data root", async () => {
    const home = mkdtempSync(join(tmpdir(), "devflow-bad-idle-home-"));
    const repo = createFixtureRepo("csv-import");
    const run = await runDevflow(["daemon"], { DEVFLOW_HOME: home, DEVFLOW_MAX_IDLE_CODER_CHECKOUTS: "abc" });
    refusedAtStart(run, "DEVFLOW_MAX_IDLE_CODER_CHECKOUTS", repo);
    expect(readdirSync(home)).toEqual([]);
  });
});
