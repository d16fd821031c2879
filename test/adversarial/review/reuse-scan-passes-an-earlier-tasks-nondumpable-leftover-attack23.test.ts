/**
 * Session-23 review (review23): the claim's in-use scan (src/workspace/dir-in-use.ts, ADR 0050
 * amendment of session 23) counts an unreadable (non-dumpable) process of devflow's uid only if it
 * started at or after the old task began. A leftover of an EARLIER task escapes that window:
 *
 *   task A's coder (no PID namespace, ADR 0020 layer 1 missing) leaves a daemon that clears its
 *   environment (the marker layer misses it) and turns non-dumpable (prctl(PR_SET_DUMPABLE, 0));
 *   A's checkout is declined at the next claim (the daemon started after A began) and task B gets a
 *   fresh checkout; the daemon then chdirs into B's checkout. When task C claimed B's idle checkout,
 *   the daemon started before B began, so it did not count, the checkout was reused, and the daemon
 *   sat in C's checkout (it follows the rename) and could write C's tree.
 *
 * From /proc the daemon is indistinguishable from the user's own ssh-agent (attack18 pins that an
 * older non-dumpable process must not stop reuse for good), so no threshold taken from the old task
 * closes it at the scan. This test pins that limit of the scan (it returns null for the daemon).
 * Fixed by policy instead: where runs' leftovers do not die with them (no PID namespace,
 * `runLeftoversDieWithTheRun()` false), no coder checkout is kept idle or reused at all
 * (test/lane/coder-checkout-reuse.test.ts, "without a PID namespace for coders"); with a PID
 * namespace no process of an old coder outlives its run, so there is no such daemon.
 *
 * Needs root (drops to an unused uid with setpriv, as attack18) and a fresh dist/.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCAN = new URL("../../../dist/src/workspace/dir-in-use.js", import.meta.url);
const UID = 300_000 + (process.pid % 100_000);
const AS = [`--reuid=${UID}`, `--regid=${UID}`, "--clear-groups"];
const usable = () =>
  process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0 && existsSync(SCAN);

const kids: ChildProcess[] = [];
const tops: string[] = [];
afterEach(() => {
  for (const kid of kids.splice(0)) kid.kill("SIGKILL");
  for (const top of tops.splice(0)) rmSync(top, { recursive: true, force: true });
});

describe.runIf(usable())(
  "an earlier task's non-dumpable leftover in the old task's checkout (attack23)",
  () => {
    it("is not seen by the scan alone (why reuse is refused where leftovers survive their run)", async () => {
      const top = mkdtempSync(join(tmpdir(), "devflow-attack23-daemon-"));
      tops.push(top);
      chmodSync(top, 0o755);
      const checkoutOfB = join(top, "task-b");
      mkdirSync(checkoutOfB);
      chownSync(checkoutOfB, UID, UID);
      // Task A's daemon: environment cleared, non-dumpable, waits, then moves into B's checkout.
      const daemon = spawn(
        "setpriv",
        [
          ...AS,
          "env",
          "-i",
          "python3",
          "-c",
          "import ctypes,os,sys,time; ctypes.CDLL(None).prctl(4,0,0,0,0); time.sleep(3); os.chdir(sys.argv[1]); time.sleep(60)",
          checkoutOfB,
        ],
        { stdio: "ignore" },
      );
      kids.push(daemon);
      await new Promise((r) => setTimeout(r, 2600)); // beyond the scan's 2 s clock slack
      const taskBBegan = Date.now();
      await new Promise((r) => setTimeout(r, 1000));
      expect(readlinkSync(`/proc/${daemon.pid}/cwd`)).toBe(checkoutOfB); // it is there (root reads it)
      const why = JSON.parse(
        execFileSync(
          "setpriv",
          [
            ...AS,
            process.execPath,
            "--input-type=module",
            "-e",
            `const m = await import(${JSON.stringify(SCAN.href)}); console.log(JSON.stringify(m.whyDirInUse(${JSON.stringify(checkoutOfB)}, ${taskBBegan})));`,
          ],
          { encoding: "utf8", env: { ...process.env, HOME: tmpdir() } },
        ).trim(),
      );
      // The scan's limit: nothing tells this daemon from an agent the user started before task B.
      expect(why).toBeNull();
    }, 20_000);
  },
);
