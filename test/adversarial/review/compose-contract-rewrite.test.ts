/**
 * Hostile review (session 16) of compose Verify (src/lanes/compose/plan-verify.ts): where it takes
 * the contracts it re-checks from (ADR 0021, "Fifth hostile review").
 *
 * later-task-rewrites-an-earlier-tasks-pinned-contract (without the mount namespace): Verify reads
 * every landed task's contract from that task's `iterator_run.json` on disk, after all tasks ran.
 * Where mount namespaces are unavailable a later task's coder can reach the user's `.devflow/` by
 * path; T3's coder reverts T1's fix, neuters T1's seam test and empties the seam file pins of T1's
 * contract in `.devflow/iterate/plan-<id>-t1/iterator_run.json`. T3's own tamper check covers only
 * T3's artifacts, the user-repo fingerprint leaves `.devflow/` out, so Verify finds nothing to pin
 * for T1, re-runs the neutered seam by exit code and the plan ends `completed` without T1's fix.
 * Fix: the compose lane reads each task's contract right after it landed (before any later coder
 * ran) and Verify checks with that one; a contract file that no longer matches fails the plan as
 * tamper by name. Left (like ADR 0018): a rewrite before a `--resume` of tasks landed earlier.
 *
 *     npx vitest run test/adversarial/review/compose-contract-rewrite.test.ts
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAN_DEMO_CODER_SCRIPT } from "../../../src/fixtures/plan-demo.js";
import { runComposeOn } from "../../support/compose-harness.js";
import { tempDir } from "../../support/lane-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

const saved = process.env.DEVFLOW_NO_MOUNT_NAMESPACE;
beforeAll(() => {
  process.env.DEVFLOW_NO_MOUNT_NAMESPACE = "1";
});
afterAll(() => {
  if (saved === undefined) delete process.env.DEVFLOW_NO_MOUNT_NAMESPACE;
  else process.env.DEVFLOW_NO_MOUNT_NAMESPACE = saved;
});

/** The plan demo's coder; in T3 it also reverts T1, neuters T1's seam and unpins T1's contract. */
function hostileT3Coder(): { coder: string; marker: string } {
  const dir = tempDir("devflow-review-contract-coder-");
  const marker = join(dir, "t3-rewrote");
  const attack = `
  edit("if (!EMAIL.test(row.email.trim()))", "if (!EMAIL.test(row.email))");
  const seam = "test/email-trim.test.js";
  writeFileSync(seam, readFileSync(seam, "utf8").replace(/assert\\.\\w+\\(/g, "void ("));
  {
    const { basename, resolve } = await import("node:path");
    const here = process.cwd(); // <repo>/.devflow/worktrees/plan-<id>-t3
    const t1 = resolve(here, "../../iterate", basename(here).replace(/-t3$/, "-t1"), "iterator_run.json");
    const run = JSON.parse(readFileSync(t1, "utf8"));
    run.readiness.contract.seam_files = [];
    writeFileSync(t1, JSON.stringify(run, null, 2));
  }
  writeFileSync(${JSON.stringify(marker)}, "x");`;
  const source = readFileSync(PLAN_DEMO_CODER_SCRIPT, "utf8").replace(
    '  console.log("Comment lines are skipped.");',
    `${attack}\n  console.log("Comment lines are skipped.");`,
  );
  if (!source.includes(marker)) throw new Error("the plan coder changed: the attack was not inserted");
  const path = join(dir, "plan-coder.mjs");
  writeFileSync(path, source);
  return { coder: `command:node ${JSON.stringify(path)}`, marker };
}

describe("a later task's coder against an earlier task's recorded contract (no mount namespace)", () => {
  it("later-task-rewrites-an-earlier-tasks-pinned-contract: the plan is not completed, Verify names the tamper", {
    timeout: 600_000,
  }, async () => {
    const { coder, marker } = hostileT3Coder();
    const run = await runComposeOn({ coder });
    expect(run.error).toBeNull();
    const plan = run.run;
    expect(readFileSync(marker, "utf8")).toBe("x");
    const final = git(run.repo, "show", `${plan?.integration_branch}:src/csv-import.js`);
    expect(final, "T1's fix is gone from the integration branch").not.toContain("row.email.trim()))");
    // devflow owes: not completed; the rewrite is named, and T1's seam is checked with its real pins.
    expect(plan?.state).not.toBe("completed");
    expect(plan?.verify?.overall_result).toBe("fail");
    expect(plan?.verify?.summary).toContain("T1: tamper: its recorded contract (iterator_run.json) changed");
    const t1 = plan?.verify?.checks.find((c) => c.kind === "seam" && c.plan_task_id === "T1");
    expect(t1?.envelope.summary).toContain("test/email-trim.test.js (edited)");
    expect(git(run.repo, "rev-parse", "HEAD")).toBe(plan?.base_commit);
  });
});
