/**
 * Hostile review (session 18, review18) of the skipped reset before regression (issue 9/11,
 * src/verify/checkout-run-ledger.ts): the verify node runs regression in the checkout the seam runs
 * used, without resetting it, when the ledger says every run since the reset left it untouched.
 * Real mount namespaces, real processes, through runVerifierCommand (what every seam run goes through).
 *
 * DEFENDED: a seam run that writes untracked files, a new directory, a symlink, replaces the
 * `.git` link, deletes a tracked file and leaves a detached process that writes after the run is
 * counted untouched, and none of it reaches the checkout (the overlay's upper layer is thrown away,
 * the PID namespace ends the straggler).
 *
 * Regression (overlapping-run-offsets-an-unproven-one): the ledger compared two counters, runs
 * started and runs proven untouched since the mark. A run that started before the mark and was
 * proven after it added to "untouched" only, so one unproven run after the mark (its write in the
 * checkout) was offset by it and the ledger said "untouched": regression would then have seen the
 * write. No product path overlaps two runs in one checkout today (a task's lock serialises its
 * lanes), so this was latent; the ledger's promise (fail closed) did not hold.
 * Fix: the ledger also counts runs that settled (returned or threw); a mark taken while a run of
 * the checkout is in flight, or a check while one still is, never says "untouched".
 *
 *     VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/reset-skip-attack18.test.ts
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../../../src/process/mount-namespace.js";
import { checkoutRunMark, checkoutUntouchedSince } from "../../../src/verify/checkout-run-ledger.js";
import { runVerifierCommand } from "../../../src/verify/run-command.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function layout(): { repo: string; home: string; checkout: string; log: (n: string) => string } {
  const repo = mkdtempSync(join(tmpdir(), "devflow-attack18-reset-"));
  dirs.push(repo);
  execFileSync("git", ["init", "-q", repo]);
  const home = join(repo, ".devflow");
  const checkout = join(home, "verify", "t");
  mkdirSync(checkout, { recursive: true });
  writeFileSync(join(checkout, "a.js"), "export const a = 1;\n");
  writeFileSync(join(checkout, ".git"), "gitdir: /nowhere\n");
  return { repo, home, checkout, log: (n) => join(home, "iterate", "t", `${n}.log`) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(mountNamespaceWorks())("review18: the reset skipped before regression", () => {
  it("a seam run's leftovers (files, dir, symlink, .git link, deleted file, a straggler) never reach the checkout it is counted untouched in", async () => {
    const { repo, home, checkout, log } = layout();
    const mark = checkoutRunMark(checkout);
    const run = await runVerifierCommand({
      command: [
        "echo planted > vitest.setup.js",
        "mkdir -p test/zz && echo 'throw 1' > test/zz/extra.test.js",
        "ln -s /etc/hostname link",
        "echo 'gitdir: /tmp/evil' > .git",
        "rm a.js",
        // Detached, in its own session: writes after the run has returned.
        "setsid sh -c 'sleep 1; echo late > late.txt' </dev/null >/dev/null 2>&1 &",
      ].join("; "),
      cwd: checkout,
      timeoutMs: 20_000,
      logPath: log("seam"),
      mounts: { readOnly: repo, hide: home },
    });
    expect(run.exitCode, run.output).toBe(0);
    // Deleting a.js is a tamper finding (a tracked file the run changed): still thrown away.
    expect(checkoutUntouchedSince(mark)).toBe(true);
    await sleep(1_500);
    for (const left of ["vitest.setup.js", "test", "link", "late.txt"])
      expect(existsSync(join(checkout, left)) || isLink(join(checkout, left)), left).toBe(false);
    expect(readFileSync(join(checkout, "a.js"), "utf8")).toBe("export const a = 1;\n");
    expect(readFileSync(join(checkout, ".git"), "utf8")).toBe("gitdir: /nowhere\n");
  }, 30_000);

  it("overlapping-run-offsets-an-unproven-one: a run proven after the mark does not vouch for an unproven run after it", async () => {
    const { repo, home, checkout, log } = layout();
    // Behind the overlay (proven when it ends), in flight across the mark.
    const early = runVerifierCommand({
      command: "sleep 1.5",
      cwd: checkout,
      timeoutMs: 20_000,
      logPath: log("early"),
      mounts: { readOnly: repo, hide: home },
    });
    await sleep(400);
    const mark = checkoutRunMark(checkout);
    // No overlay (no mounts): its write lands in the checkout, and it is rightly unproven.
    const late = await runVerifierCommand({
      command: "echo planted > planted.txt",
      cwd: checkout,
      timeoutMs: 20_000,
      logPath: log("late"),
    });
    expect(late.exitCode, late.output).toBe(0);
    expect((await early).exitCode).toBe(0);
    expect(existsSync(join(checkout, "planted.txt")), "the unproven run wrote the checkout").toBe(true);
    expect(checkoutUntouchedSince(mark), "regression must get a reset").toBe(false);
  }, 30_000);
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
