/**
 * The ledger the verify node asks before it skips the reset between the seam runs and regression
 * (issue 9/11: per-attempt cost). Real runs through runVerifierCommand, real mount namespaces.
 *
 * What it must guarantee: "untouched" only for runs whose checkout overlay was mounted and read
 * back (their writes were thrown away with the upper layer); a run without the overlay (stat
 * fallback, no namespace) or one that threw leaves the checkout unproven, so the reset runs.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../process/mount-namespace.js";
import {
  checkoutRunMark,
  checkoutUntouchedSince,
  recordRunSettled,
  recordRunStarted,
} from "./checkout-run-ledger.js";
import { runVerifierCommand } from "./run-command.js";

const dirs: string[] = [];
const savedNoPid = process.env.DEVFLOW_NO_PID_NAMESPACE;
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (savedNoPid === undefined) delete process.env.DEVFLOW_NO_PID_NAMESPACE;
  else process.env.DEVFLOW_NO_PID_NAMESPACE = savedNoPid;
});

function layout(): { repo: string; home: string; checkout: string; log: string } {
  const repo = mkdtempSync(join(tmpdir(), "devflow-ledger-"));
  dirs.push(repo);
  const home = join(repo, ".devflow");
  const checkout = join(home, "verify", "t");
  mkdirSync(checkout, { recursive: true });
  writeFileSync(join(checkout, "a.js"), "export const a = 1;\n");
  return { repo, home, checkout, log: join(home, "iterate", "t", "seam.log") };
}

/** Writes an untracked file into its working directory (allowed for a test run). */
const WRITES_LEFTOVER = `node -e "require('fs').writeFileSync('leftover.txt', 'x')"`;

describe("the checkout run ledger", () => {
  it.runIf(mountNamespaceWorks())(
    "calls the checkout untouched after a run behind its overlay, whose write never reached it",
    async () => {
      const { repo, home, checkout, log } = layout();
      const mark = checkoutRunMark(checkout);
      const run = await runVerifierCommand({
        command: WRITES_LEFTOVER,
        cwd: checkout,
        timeoutMs: 20_000,
        logPath: log,
        mounts: { readOnly: repo, hide: home },
      });
      expect(run.exitCode, run.output).toBe(0);
      expect(run.failure).toBeNull();
      expect(existsSync(join(checkout, "leftover.txt")), "the write went to the upper layer").toBe(false);
      expect(checkoutUntouchedSince(mark)).toBe(true);
    },
    30_000,
  );

  it("never calls it untouched after a run without the overlay (stat fallback): its write is in the checkout", async () => {
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    const { repo, home, checkout, log } = layout();
    const mark = checkoutRunMark(checkout);
    const run = await runVerifierCommand({
      command: WRITES_LEFTOVER,
      cwd: checkout,
      timeoutMs: 20_000,
      logPath: log,
      mounts: { readOnly: repo, hide: home },
    });
    expect(run.exitCode, run.output).toBe(0);
    expect(existsSync(join(checkout, "leftover.txt"))).toBe(true);
    expect(checkoutUntouchedSince(mark)).toBe(false);
  }, 30_000);

  it("never calls it untouched after a run with no mounts at all, nor after one below it", async () => {
    const { checkout, log } = layout();
    mkdirSync(join(checkout, "sub"));
    const mark = checkoutRunMark(checkout);
    await runVerifierCommand({
      command: WRITES_LEFTOVER,
      cwd: join(checkout, "sub"),
      timeoutMs: 20_000,
      logPath: log,
    });
    expect(existsSync(join(checkout, "sub", "leftover.txt"))).toBe(true);
    expect(checkoutUntouchedSince(mark)).toBe(false);
  }, 30_000);

  it("never calls it untouched after a run that threw before it could be read back", async () => {
    const { repo, home, checkout } = layout();
    const mark = checkoutRunMark(checkout);
    // The log's directory cannot be made (a file stands where it should be): the run throws.
    writeFileSync(join(home, "iterate"), "not a directory");
    await expect(
      runVerifierCommand({
        command: WRITES_LEFTOVER,
        cwd: checkout,
        timeoutMs: 20_000,
        logPath: join(home, "iterate", "t", "seam.log"),
        mounts: { readOnly: repo, hide: home },
      }),
    ).rejects.toThrow();
    expect(checkoutUntouchedSince(mark)).toBe(false);
  });
});

/**
 * Regression (stop 22 re-read): the ledger keyed runs by their lexical path, so a run started
 * through a link to the checkout was counted under another key and the checkout's mark saw no run
 * at all: "untouched", the reset before regression skipped. Fix: keys are real paths.
 */
describe("run-started-through-a-link-is-counted-against-the-checkout", () => {
  it("a run whose working directory is a link to the checkout (or spelled with ..) is a run in the checkout", async () => {
    const { checkout } = layout();
    const link = `${checkout}-link`;
    symlinkSync(checkout, link);
    const mark = checkoutRunMark(checkout);
    recordRunStarted(link);
    recordRunSettled(link);
    expect(checkoutUntouchedSince(mark)).toBe(false);
    const again = checkoutRunMark(checkout);
    recordRunStarted(join(checkout, "..", "t"));
    recordRunSettled(join(checkout, "..", "t"));
    expect(checkoutUntouchedSince(again)).toBe(false);
  });
});
