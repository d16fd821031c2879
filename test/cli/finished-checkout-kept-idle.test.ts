/**
 * Regression (issue 11/12, "worktree removed" of a checkout kept idle): the end of a finished run
 * printed `worktree  removed` whenever the task's coder checkout left the task, also when it was
 * moved to `.devflow/worktrees/.idle/<id>` for the next task (ADR 0050), and `--json` said only
 * `worktree_kept: false`. Fix: the end of the run returns what became of the checkout
 * (kept / kept_idle / removed) and the summary and the result line say that. Real CLI, real git,
 * real coder processes, replayed model.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { DEMO_CASSETTE } from "../../src/fixtures/demo.js";
import { idleCoderCheckoutsDir } from "../../src/home/index.js";
import { taskWorktreePath } from "../../src/workspace/index.js";
import { cli } from "../support/cli.js";
import { CORRECT_FIX, coderScript, DEMO_REQUEST } from "../support/lane-harness.js";

const iterate = (repo: string, task: string, ...extra: string[]) =>
  cli(
    "iterate",
    DEMO_REQUEST,
    "--repo",
    repo,
    "--task-id",
    task,
    "--coder",
    coderScript(CORRECT_FIX),
    "--replay",
    DEMO_CASSETTE,
    "--max-iterations",
    "3",
    ...extra,
  );

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the end of a finished run says what became of the coder checkout", () => {
  it("says 'kept idle' with its path (not 'removed') when the checkout is kept for the next task", async () => {
    const repo = createFixtureRepo("csv-import");
    const human = await iterate(repo, "idle-human");
    expect(human.code, human.err).toBe(0);
    const idlePath = join(idleCoderCheckoutsDir(repo), "idle-human");
    expect(existsSync(idlePath)).toBe(true);
    expect(existsSync(taskWorktreePath(repo, "idle-human"))).toBe(false);
    expect(human.err).not.toMatch(/^worktree +removed/m);
    expect(human.err).toMatch(/^worktree +coder checkout kept idle for the next task \(/m);
    expect(human.err.replace(/\s+/g, " ")).toContain(idlePath);

    const json = await iterate(repo, "idle-json", "--json");
    expect(json.code, json.err).toBe(0);
    const result = JSON.parse(json.out.trim().split("\n").at(-1) ?? "{}");
    expect(result.worktree_kept).toBe(false);
    expect(result.worktree_end).toBe("kept_idle");
    expect(result.worktree_idle_path).toBe(join(idleCoderCheckoutsDir(repo), "idle-json"));
    expect(existsSync(result.worktree_idle_path)).toBe(true);
  }, 300_000);

  it("still says 'removed' when no checkout is kept idle (DEVFLOW_MAX_IDLE_CODER_CHECKOUTS=0)", async () => {
    vi.stubEnv("DEVFLOW_MAX_IDLE_CODER_CHECKOUTS", "0");
    const repo = createFixtureRepo("csv-import");
    const json = await iterate(repo, "gone", "--json");
    expect(json.code, json.err).toBe(0);
    const result = JSON.parse(json.out.trim().split("\n").at(-1) ?? "{}");
    expect(result.worktree_end).toBe("removed");
    expect(result.worktree_idle_path).toBeUndefined();
    expect(existsSync(join(idleCoderCheckoutsDir(repo), "gone"))).toBe(false);
    expect(existsSync(taskWorktreePath(repo, "gone"))).toBe(false);
  }, 300_000);
});
