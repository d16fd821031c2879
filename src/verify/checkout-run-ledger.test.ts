/**
 * The ledger the verify node asks before it skips the reset between the seam runs and regression
 * (issue 9/11: per-attempt cost). Real runs through runVerifierCommand, real mount namespaces.
 *
 * What it must guarantee: "untouched" only for runs whose checkout overlay was mounted and read
 * back (their writes were thrown away with the upper layer); a run without the overlay (stat
 * fallback, no namespace) or one that threw leaves the checkout unproven, so the reset runs.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runInCheckout, verifyCheckoutLayout } from "../../test/support/verify-checkout-layout.js";
import { mountNamespaceWorks } from "../process/mount-namespace.js";
import {
  checkoutRunMark,
  checkoutUntouchedSince,
  recordRunSettled,
  recordRunStarted,
} from "./checkout-run-ledger.js";

const dirs: string[] = [];
const savedNoPid = process.env.DEVFLOW_NO_PID_NAMESPACE;
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (savedNoPid === undefined) delete process.env.DEVFLOW_NO_PID_NAMESPACE;
  else process.env.DEVFLOW_NO_PID_NAMESPACE = savedNoPid;
});

const layout = () =>
  verifyCheckoutLayout(dirs, "devflow-ledger-", { "a.js": "export const a = 1;\n" }, "seam");

/** Writes an untracked file into its working directory (allowed for a test run). */
const WRITES_LEFTOVER = `node -e "require('fs').writeFileSync('leftover.txt', 'x')"`;

describe("the checkout run ledger", () => {
  it.runIf(mountNamespaceWorks())(
    "calls the checkout untouched after a run behind its overlay, whose write never reached it",
    async () => {
      const at = layout();
      const { checkout } = at;
      const mark = checkoutRunMark(checkout);
      const run = await runInCheckout(at, WRITES_LEFTOVER);
      expect(run.exitCode, run.output).toBe(0);
      expect(run.failure).toBeNull();
      expect(existsSync(join(checkout, "leftover.txt")), "the write went to the upper layer").toBe(false);
      expect(checkoutUntouchedSince(mark)).toBe(true);
    },
    30_000,
  );

  it("never calls it untouched after a run without the overlay (stat fallback): its write is in the checkout", async () => {
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    const at = layout();
    const { checkout } = at;
    const mark = checkoutRunMark(checkout);
    const run = await runInCheckout(at, WRITES_LEFTOVER);
    expect(run.exitCode, run.output).toBe(0);
    expect(existsSync(join(checkout, "leftover.txt"))).toBe(true);
    expect(checkoutUntouchedSince(mark)).toBe(false);
  }, 30_000);

  it("never calls it untouched after a run with no mounts at all, nor after one below it", async () => {
    const at = layout();
    const { checkout } = at;
    mkdirSync(join(checkout, "sub"));
    const mark = checkoutRunMark(checkout);
    await runInCheckout(at, WRITES_LEFTOVER, { overlay: false, cwd: join(checkout, "sub") });
    expect(existsSync(join(checkout, "sub", "leftover.txt"))).toBe(true);
    expect(checkoutUntouchedSince(mark)).toBe(false);
  }, 30_000);

  it("never calls it untouched after a run that threw before it could be read back", async () => {
    const at = layout();
    const mark = checkoutRunMark(at.checkout);
    // The log's directory cannot be made (a file stands where it should be): the run throws.
    writeFileSync(join(at.home, "iterate"), "not a directory");
    await expect(runInCheckout(at, WRITES_LEFTOVER)).rejects.toThrow();
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
