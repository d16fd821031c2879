/**
 * A new task adopts the idle verification checkout of a finished task instead of checking out the
 * whole base again (ADR 0039; issue 9: "below one full clone per task"). The lane end to end on a
 * real repo with real processes: what B verified must be B's snapshot, whatever A's last test run
 * left in the checkout or in its git dir, and a checkout is never taken from a live run or by two
 * tasks at once.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { lockTask, verifyCheckoutDir, verifyGitDir } from "../../src/home/index.js";
import { adoptIdleVerificationCheckout } from "../../src/lanes/iterate/lane/adopt-verification-checkout.js";
import { CORRECT_FIX, coderScript, type LaneRun, runLane } from "../support/lane-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const commitAsUser = (repo: string, file: string, content: string) => {
  writeFileSync(join(repo, file), content);
  git(repo, "add", file);
  git(repo, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", `user: ${file}`);
};

/** What A's last test run could leave: README.md edited in place, same size, its mtime put back. */
function tamperReadme(checkout: string): void {
  const file = join(checkout, "README.md");
  const before = statSync(file);
  const text = readFileSync(file, "utf8");
  writeFileSync(file, text.replace(/[a-z]/, "X"));
  utimesSync(file, before.atime, before.mtime);
}

const adoption = (run: LaneRun) => run.events.find((e) => e.node === "verify-checkout")?.detail;

async function completed(repo: string, taskId: string, env?: NodeJS.ProcessEnv): Promise<LaneRun> {
  const run = await runLane({
    repo,
    taskId,
    coder: coderScript(CORRECT_FIX),
    ...(env ? { extra: { env } } : {}),
  });
  expect(run.error).toBeNull();
  expect(run.result?.terminal.verdict).toBe("completed");
  return run;
}

describe("a new task reuses a finished task's verification checkout", () => {
  it("B adopts A's checkout and verifies exactly B's snapshot: A's leftovers restored, the user's new commit present", {
    timeout: 300_000,
  }, async () => {
    const repo = createFixtureRepo("csv-import");
    await completed(repo, "reuse-a");
    tamperReadme(verifyCheckoutDir(repo, "reuse-a"));
    commitAsUser(repo, "NOTES.md", "added by the user after task A\n");

    const b = await completed(repo, "reuse-b");
    expect(adoption(b)).toMatchObject({ adopted_from: "reuse-a", index_trusted: true });
    expect(existsSync(verifyCheckoutDir(repo, "reuse-a"))).toBe(false);
    expect(existsSync(verifyGitDir(repo, "reuse-a"))).toBe(false);
    const checkout = verifyCheckoutDir(repo, "reuse-b");
    // B's last verification ran on B's snapshot, which is what devflow committed.
    for (const file of ["README.md", "NOTES.md", "src/csv-import.js"])
      expect(readFileSync(join(checkout, file), "utf8"), file).toBe(
        `${git(repo, "show", `devflow/reuse-b:${file}`)}\n`,
      );
  });

  it("never takes a live run's checkout, distrusts an index changed while idle, and never gives one checkout to two tasks", {
    timeout: 400_000,
  }, async () => {
    const repo = createFixtureRepo("csv-import");
    await completed(repo, "live-a");
    // A --resume of A at work holds its lock: B must check out its own.
    const release = await lockTask(repo, "live-a");
    let b: LaneRun;
    try {
      b = await completed(repo, "live-b");
    } finally {
      await release();
    }
    expect(adoption(b)).toBeUndefined();
    expect(existsSync(verifyCheckoutDir(repo, "live-a"))).toBe(true);
    expect(existsSync(verifyCheckoutDir(repo, "live-b"))).toBe(true);

    // While idle, A's index hides a tampered README.md from the stat check.
    const idle = verifyCheckoutDir(repo, "live-a");
    tamperReadme(idle);
    git(idle, "update-index", "--skip-worktree", "README.md");
    // With no idle checkout allowed beyond the adopted one, C also removes B's (finished, lock free).
    const c = await completed(repo, "live-c", { ...process.env, DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS: "0" });
    expect(adoption(c)).toEqual({
      adopted_from: "live-a",
      index_trusted: false,
      removed: ["live-b"],
      max_idle: 0,
    });
    expect(existsSync(verifyCheckoutDir(repo, "live-b"))).toBe(false);
    expect(existsSync(verifyGitDir(repo, "live-b"))).toBe(false);
    const readme = readFileSync(join(verifyCheckoutDir(repo, "live-c"), "README.md"), "utf8");
    expect(readme).toBe(`${git(repo, "show", "devflow/live-c:README.md")}\n`);

    // Only C's checkout is idle now: of three tasks starting at once exactly one gets it.
    const base = git(repo, "rev-parse", "HEAD");
    const reports = await Promise.all(
      ["live-d", "live-e", "live-f"].map((id) => adoptIdleVerificationCheckout(repo, id, base, {})),
    );
    const taken = reports.flatMap((r) => (r.adopted ? [r.adopted.from] : []));
    expect(taken).toEqual(["live-c"]);
    for (const [i, id] of ["live-d", "live-e", "live-f"].entries())
      expect(existsSync(join(verifyCheckoutDir(repo, id), "README.md")), id).toBe(
        reports[i]?.adopted != null,
      );
  });
});
