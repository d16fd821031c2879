/**
 * A plan killed with SIGKILL between tasks resumes with `devflow plan --resume <id>` to the verdict
 * an uninterrupted run reaches, without redoing a landed task: plan_run.json is the truth of what
 * landed, and each task's iterate task id is deterministic so a stopped task resumes through its
 * own checkpoint. Real CLI processes, real git, the real kill hook (ADR 0033, 0055).
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PlanRun } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { openPlanStore, openTaskStore } from "../../src/home/index.js";
import { KILL_NOTICE, TEST_KILL_AT_ENV } from "../../src/util/test-kill-point.js";
import { planCassettes, planCoder } from "../support/compose-harness.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";

function devflowPlan(args: string[], killAt?: string): Promise<{ code: number | null; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env[TEST_KILL_AT_ENV];
  if (killAt) env[TEST_KILL_AT_ENV] = killAt;
  const child = spawn(process.execPath, [DEVFLOW_BIN, "plan", ...args], {
    detached: true,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  return new Promise((resolve) =>
    child.on("close", (code) => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {}
      resolve({ code, stderr });
    }),
  );
}

describe("compose: kill -9 between tasks, then --resume", () => {
  for (const point of ["compose.task-landed", "compose.branch-moved"] as const) {
    it(`killed at ${point} after T1, resumes to completed without redoing T1`, {
      timeout: 600_000,
    }, async () => {
      const repo = createFixtureRepo("csv-import");
      const cassettes = planCassettes();
      const common = ["-r", repo, "--yes", "--replay", cassettes, "--coder", planCoder("repair")];
      const killed = await devflowPlan([PLAN_DEMO_REQUEST, ...common], `${point}@1`);
      expect(killed.stderr).toContain(`${KILL_NOTICE}${point}@1`);
      const [planId = ""] = readdirSync(join(repo, ".devflow", "idea"));
      const store = openPlanStore(repo, planId);
      const before = PlanRun.parse(await store.read("plan_run"));
      expect(before.tasks.map((t) => t.status)).toEqual(
        point === "compose.task-landed"
          ? ["landed", "pending", "pending"]
          : ["running", "pending", "pending"],
      );
      const t1 = openTaskStore(repo, before.tasks[0]?.iterate_task_id ?? "");
      const t1Revision = await t1.currentRevision("iterator_run");

      const resumed = await devflowPlan(["--resume", planId, ...common]);
      expect(resumed.stderr).not.toContain(KILL_NOTICE);
      expect(resumed.code).toBe(0);
      const after = PlanRun.parse(await store.read("plan_run"));
      expect(after.state).toBe("completed");
      expect(after.tasks.map((t) => t.status)).toEqual(["landed", "landed", "landed"]);
      // T1 was not redone: its iterate run record did not change, and its commit is the same.
      expect(await t1.currentRevision("iterator_run")).toBe(t1Revision);
      const t1Commit = (await t1.read("iterator_run"))?.terminal?.commit;
      expect(after.tasks[0]?.commit).toBe(t1Commit);
      expect(after.tasks[1]?.base_commit).toBe(t1Commit);
    });
  }
});
