import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gradeScenario } from "../../playground/run-playground.js";
import { CASSETTES_DIR } from "../../playground/run-scenario.js";
import { findScenario } from "../../scenarios/index.js";
import { ObservationArtifact } from "../../src/index.js";
import {
  cassetteOf,
  cleanupRuns,
  coderScriptFile,
  failed,
  runGraded,
  tamperArtifact,
  taskDirOf,
} from "../sabotage.test-support.js";
import type { Check, ScenarioRun } from "../types.js";
import { refereeRun } from "./referee.js";

/**
 * The independent referee (ADR 0027) against runs that lie: each test makes devflow's record
 * claim something the repository does not hold, and the referee must name it, while the record
 * alone (the scenario's own evaluator) would let it through.
 */
afterAll(cleanupRuns);

const SCENARIO = "scoped_fix_succeeds_first_pass";

const failedChecks = (checks: Check[]) => checks.filter((c) => !c.pass).map((c) => c.criterion);

describe("the referee", () => {
  let honest: ScenarioRun;
  beforeAll(async () => {
    const graded = await runGraded(SCENARIO);
    expect(graded.evaluation.notes).toEqual([]);
    honest = graded.run;
  });

  it("re-checks an honest completed run from a fresh clone and finds nothing", async () => {
    const checks = await refereeRun((await findScenario(SCENARIO)).scenario, honest);
    expect(checks.map((c) => c.criterion).sort()).toEqual([
      "referee_branch_matches_record",
      "referee_hidden_acceptance",
      "referee_seam_green",
      "referee_seam_red_on_base",
    ]);
    expect(failedChecks(checks)).toEqual([]);
  });

  it("a lying result branch: devflow claims completed, the hidden acceptance test fails", async () => {
    // The coder special-cases the seam's one input (a $4.00 item); with the cassette's lenient
    // critic devflow completes, and every grader that reads devflow's record passes.
    const coder = coderScriptFile(`
      import { readFileSync, writeFileSync } from "node:fs";
      const file = "src/cart.js";
      const source = readFileSync(file, "utf8");
      writeFileSync(file, source.replace(
        "sum + item.priceCents,",
        "sum + item.priceCents * (item.priceCents === 400 ? item.quantity : 1),",
      ));
      console.log("cartTotal now multiplies the price by the quantity.");
    `);
    const { run, evaluation } = await runGraded(SCENARIO, { coderScript: coder });
    expect(run.terminal?.verdict).toBe("completed");
    expect(failed(evaluation)).toEqual(["referee_hidden_acceptance"]);
    expect(evaluation.notes[0]).toMatch(
      /^referee_hidden_acceptance: devflow claims completed, but the hidden acceptance test \(scenarios\/hidden\/cart-quantity-total\) fails on a clean clone of devflow\/scoped_fix_succeeds_first_pass/,
    );
  });

  it("a branch moved after the run: its tip is not the recorded commit", async () => {
    // The result branch lives in the user's repository (the coder's checkout is a clone of its
    // own, ADR 0025): move it there, one empty commit further.
    const repo = honest.repo ?? "";
    const branch = `refs/heads/devflow/${basename(honest.taskDir ?? "")}`;
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=x", "-c", "user.email=x@x", ...args], {
        cwd: repo,
        encoding: "utf8",
      }).trim();
    const tip = git("rev-parse", branch);
    git("update-ref", branch, git("commit-tree", `${tip}^{tree}`, "-p", tip, "-m", "later"), tip);
    const checks = await refereeRun((await findScenario(SCENARIO)).scenario, honest);
    expect(failedChecks(checks)).toEqual(["referee_branch_matches_record"]);
    expect(checks.find((c) => !c.pass)?.note).toMatch(
      /the branch tip is [0-9a-f]{10}, the record says [0-9a-f]{10}/,
    );
  });

  it("an observation recorded red on base whose seam passes on a clone of the base is caught", async () => {
    const name = "observer_fake_repro_not_confirmed";
    const { run } = await runGraded(name);
    tamperArtifact(join(taskDirOf(run), "observation_artifact.json"), ObservationArtifact, (o) => {
      if (o.seam_check) o.seam_check.red = true;
    });
    const checks = await refereeRun((await findScenario(name)).scenario, run);
    expect(failedChecks(checks)).toEqual(["referee_seam_red_on_base"]);
    expect(checks[0]?.note).toMatch(/on a fresh clone it exits 0/);
  });
});

describe("a replay must use its whole cassette", () => {
  it("a completed lane run that leaves a critic answer unconsumed fails, naming the role and the count", async () => {
    const cassette = await cassetteOf(SCENARIO);
    const critic = cassette.calls.critic ?? [];
    cassette.calls.critic = [...critic, ...critic];
    const module = await findScenario(SCENARIO);
    const { execution, evaluation } = await gradeScenario(module, {
      mode: "replay",
      model: "gpt-4.1-mini",
      coder: null,
      cassetteDir: CASSETTES_DIR,
      cassette,
    });
    if (execution.run.repo) rmSync(dirname(execution.run.repo), { recursive: true, force: true });
    expect(execution.unusedReplies).toEqual({ critic: 1 });
    expect(failed(evaluation)).toEqual(["cassette_fully_replayed"]);
    expect(evaluation.notes[0]).toMatch(/cassette_fully_replayed: .*\(critic: 1\)/);
  });
});
