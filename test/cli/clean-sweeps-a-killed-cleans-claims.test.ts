/**
 * Issue 11 leftover, "a killed clean's claim is never swept": `devflow clean` removes an idle coder
 * checkout by first renaming it to `.idle/.clean-<pid>-<random>` (idle-checkouts.ts), then deleting
 * it. A clean killed between the two left that folder for good: no task id, so no listing, no reuse
 * and no later clean ever saw it.
 * Fix (idle-checkouts.ts abandonedClaims, clean.ts): every `devflow clean` removes the claims whose
 * process is gone; a live claimer's and any other name are left alone, and a claim that is a link
 * is removed as the link. A real repository, a real killed process's pid, the real bin.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { runDevflow } from "../faults/cli-process.js";

/** The pid of a process that was killed (SIGKILL) and is gone, as a killed clean's would be. */
async function killedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  return child.pid as number;
}

/** A half-deleted claimed checkout, as a clean killed mid-`rm` leaves it. */
function claimedCheckout(path: string): void {
  mkdirSync(join(path, "src"), { recursive: true });
  execFileSync("git", ["init", "-q", path]);
  writeFileSync(join(path, "src", "left.txt"), "half removed\n".repeat(2000));
}

it("the next devflow clean removes a killed clean's .clean-<pid>-<random> claim, and nothing else", async () => {
  const repo = createFixtureRepo("csv-import");
  const idle = join(repo, ".devflow", "worktrees", ".idle");
  mkdirSync(idle, { recursive: true });
  writeFileSync(join(repo, ".devflow", ".gitignore"), "*\n");
  const dead = await killedPid();
  const abandoned = join(idle, `.clean-${dead}-0123456789ab`);
  claimedCheckout(abandoned);
  // A claim that is a link: only the link goes.
  const outside = mkdtempSync(join(tmpdir(), "devflow-claim-target-"));
  writeFileSync(join(outside, "precious.txt"), "keep me\n");
  symlinkSync(outside, join(idle, `.clean-${dead}-abcdefabcdef`));
  // Not abandoned claims: a live process's (this test's), names that only look alike, an idle checkout.
  claimedCheckout(join(idle, `.clean-${process.pid}-0123456789ab`));
  mkdirSync(join(idle, ".clean-notes"));
  mkdirSync(join(idle, `.clean-${dead}-not-hex-name`));
  claimedCheckout(join(idle, "waiting-task"));
  const kept = [
    `.clean-${process.pid}-0123456789ab`,
    ".clean-notes",
    `.clean-${dead}-not-hex-name`,
    "waiting-task",
  ].sort();

  const dry = await runDevflow(["clean", "-r", repo, "--failed", "--dry-run", "--json"], {});
  expect(dry.code, dry.stderr).toBe(0);
  expect(JSON.parse(dry.stdout).abandoned_claims.sort()).toEqual(
    [abandoned, join(idle, `.clean-${dead}-abcdefabcdef`)].sort(),
  );
  expect(existsSync(join(abandoned, "src", "left.txt"))).toBe(true);

  // Any clean sweeps them: here one that selects failed tasks (there are none).
  const run = await runDevflow(["clean", "-r", repo, "--failed"], {});
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^removed 2 idle checkout\(s\) a killed clean left half-removed: /m);
  expect(readdirSync(idle).sort()).toEqual(kept);
  expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("keep me\n");
  expect(lstatSync(outside).isDirectory()).toBe(true);
  rmSync(outside, { recursive: true, force: true });
  rmSync(repo, { recursive: true, force: true });
});
