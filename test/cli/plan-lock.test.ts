/**
 * Regression: two `devflow plan --resume <id>` of one plan ran at once.
 * Cause: only each iterate task had a lock; a second process resuming the same plan read the same
 * plan_run.json and could start the next task or move the integration branch beside the first.
 * Fix: runCompose holds the plan's lock (`.devflow/idea/<id>/plan.lock`, src/home/plan-lock.ts,
 * ADR 0060) for the whole run; a second process is refused at once with one line (PLAN_LOCKED,
 * exit 2), and a lock whose holder was killed is taken over. Real processes, real lock files.
 * Needs the build (`npm run build`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { lockPlan } from "../../src/home/index.js";
import { planCassettes, planCoder, planDemoBrief } from "../support/compose-harness.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0))
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }
});

function devflow(
  args: string[],
  cwd: string,
): { child: ChildProcess; done: Promise<{ code: number | null; err: string }> } {
  const child = spawn(process.execPath, [DEVFLOW_BIN, ...args], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  child.stdout?.resume();
  const done = new Promise<{ code: number | null; err: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, err })),
  );
  return { child, done };
}

async function until(check: () => boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("a second devflow plan --resume of a running plan exits 2 with one line; a killed holder's lock is taken over", {
  timeout: 240_000,
}, async () => {
  const cassettes = planCassettes();
  const repo = createFixtureRepo("csv-import");
  const planId = await planDemoBrief(repo, cassettes);
  const args = [
    "plan",
    "--resume",
    planId,
    "--yes",
    "-r",
    repo,
    "--replay",
    cassettes,
    "--coder",
    planCoder("repair"),
  ];
  const first = devflow(args, repo);
  const owner = join(repo, ".devflow", "idea", planId, "plan.owner");
  await until(
    () => existsSync(owner) && readFileSync(owner, "utf8").includes(String(first.child.pid)),
    "the first run's plan lock",
  );

  const second = await devflow(args, repo).done;
  const lines = second.err.trim().split("\n");
  expect(second.code, second.err).toBe(2);
  expect(lines, JSON.stringify(second.err)).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(`plan ${planId} is already running in another devflow process \\(pid ${first.child.pid}`),
  );
  expect(lines[0]).toMatch(/PLAN_LOCKED|wait for it to finish, then devflow plan --resume/);

  // The holder dies without releasing: the next resume takes its lock over at once.
  if (first.child.pid) process.kill(-first.child.pid, "SIGKILL");
  await first.done;
  const taken = await lockPlan(repo, planId);
  await taken.release();
});
