/**
 * Hostile review (session 15) of the compose lane (ADR 0055): a task's coder attacks what earlier
 * tasks landed, so that the plan's Verify re-runs their seams vacuously.
 *
 * later-task-neuters-an-earlier-tasks-seam-and-reverts-its-fix: T3's coder (skip comment lines)
 * does its own task and, in the same change, reverts T1's fix (trim emails) and turns every
 * assertion of T1's seam test (test/email-trim.test.js) into `void (...)`. T3's own verification
 * cannot see it: its seam_integrity pins only T3's seam files, regression finds every named test
 * passing (the neutered one keeps its name), scope allows `test/**`, the critic is lenient. The
 * plan's Verify then re-ran T1's pinned seam command by exit code on the final tree: green. The
 * plan ended `completed` with T1's fix gone from devflow/plan-<id>.
 * Fix: Verify first checks every landed task's pinned seam files on the final tree against the
 * hashes the last task that pinned each path recorded (src/lanes/compose/plan-verify.ts); an
 * edited, deleted or created seam file fails the task's seam check by name, so the plan ends
 * `unverified`.
 *
 *     npx vitest run test/adversarial/review/compose-plan.test.ts
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PLAN_DEMO_CODER_SCRIPT } from "../../../src/fixtures/plan-demo.js";
import { runComposeOn } from "../../support/compose-harness.js";
import { tempDir } from "../../support/lane-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/** The plan demo's coder, plus the attack on T1 in the comment-lines task (T3). */
function hostileT3Coder(): { coder: string; marker: string } {
  const dir = tempDir("devflow-review-plan-coder-");
  const marker = join(dir, "t3-attacked");
  const attack = `
  // The attack: undo T1's fix and neuter T1's seam test (same test names, no assertion left).
  edit("if (!EMAIL.test(row.email.trim()))", "if (!EMAIL.test(row.email))");
  const seam = "test/email-trim.test.js";
  writeFileSync(seam, readFileSync(seam, "utf8").replace(/assert\\.\\w+\\(/g, "void ("));
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

describe("a later task's coder against what earlier tasks landed", () => {
  it("later-task-neuters-an-earlier-tasks-seam-and-reverts-its-fix: the plan is not completed", {
    timeout: 600_000,
  }, async () => {
    const { coder, marker } = hostileT3Coder();
    const run = await runComposeOn({ coder });
    expect(run.error).toBeNull();
    const plan = run.run;
    // The attack ran and T3 itself landed (its own verification cannot see it).
    expect(readFileSync(marker, "utf8")).toBe("x");
    expect(plan?.tasks.map((t) => [t.plan_task_id, t.status])).toEqual([
      ["T1", "landed"],
      ["T2", "landed"],
      ["T3", "landed"],
    ]);
    const final = git(run.repo, "show", `${plan?.integration_branch}:src/csv-import.js`);
    expect(final, "T1's fix is gone from the integration branch").not.toContain("row.email.trim()))");
    // devflow owes: the plan is not completed, and Verify names T1's edited seam file.
    expect(plan?.state).not.toBe("completed");
    expect(plan?.verify?.overall_result).toBe("fail");
    const t1 = plan?.verify?.checks.find((c) => c.kind === "seam" && c.plan_task_id === "T1");
    expect(t1?.envelope.overall_result).toBe("fail");
    expect(t1?.envelope.summary).toContain("test/email-trim.test.js (edited)");
    // The user's checkout never changed.
    expect(git(run.repo, "rev-parse", "HEAD")).toBe(plan?.base_commit);
  });
});
