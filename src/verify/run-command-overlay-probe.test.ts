/**
 * Checkout walked twice by the first verification run of every process (issue 11, stop 17's
 * closing note): run-command both mounted the checkout overlay and stat-walked the whole checkout
 * (before and after the run) until one overlay had been seen to work in the process, two extra
 * walks of 20,000 files on a large repository. Fix: the overlay is probed once per home with the
 * run's own mount plan on a scratch checkout inside the home (`checkoutOverlayWorks`), so the first
 * run trusts the overlay and skips the walk. What the walk guarded is still caught: the first run's
 * change to a tracked file fails it by name.
 *
 * Its own file: `statCheckout` is wrapped (the real function, counted) and the "seen working" flag
 * is per module instance, so this file's process starts with no run seen.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkoutOverlayWorks, mountNamespaceWorks } from "../process/mount-namespace.js";
import { statCheckout } from "./checkout-stat.js";
import { runVerifierCommand } from "./run-command.js";

vi.mock("./checkout-stat.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("./checkout-stat.js")>();
  return { ...real, statCheckout: vi.fn(real.statCheckout) };
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(mountNamespaceWorks())("the checkout overlay probed once per home (issue 11)", () => {
  it("the first run of a process does not walk the checkout, and its write to a tracked file still fails it", async () => {
    const repo = mkdtempSync(join(tmpdir(), "devflow-overlay-probe-"));
    dirs.push(repo);
    const home = join(repo, ".devflow");
    const checkout = join(home, "verify", "t");
    mkdirSync(join(checkout, "src"), { recursive: true });
    writeFileSync(join(checkout, "src", "a.js"), "export const a = 1;\n");
    const mounts = { readOnly: repo, hide: home };

    expect(checkoutOverlayWorks(mounts)).toBe(true);
    // The probe's scratch checkout is gone from the home.
    expect(readdirSync(home)).toEqual(["verify"]);

    const run = await runVerifierCommand({
      command: `node -e 'require("node:fs").writeFileSync("src/a.js", "export const a = 2;\\n")'`,
      cwd: checkout,
      timeoutMs: 20_000,
      logPath: join(home, "iterate", "t", "regression.log"),
      mounts,
    });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.failure).toMatch(/tamper: the test run changed tracked file src\/a\.js/);
    expect(vi.mocked(statCheckout)).not.toHaveBeenCalled();
  });
});
