import { type ChildProcess, execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The built in-use scan: run as another uid it must be importable without tsx. */
export const BUILT_SCAN = new URL("../../dist/src/workspace/dir-in-use.js", import.meta.url);

/**
 * An ordinary uid no one else on the machine runs as, distinct per `range` (one per test file:
 * another file's process of the same uid, started meanwhile, would rightly count in its scans) and
 * per vitest worker.
 */
export const unusedUid = (range: number): number => range * 100_000 + (process.pid % 100_000);

/** `setpriv` arguments that drop to `uid` (its own group, no supplementary groups). */
export const asUid = (uid: number): string[] => [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];

/** Whether this process can drop to another uid (root with setpriv) and the scan is built. */
export const canDropToAnotherUid = (): boolean =>
  process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0 && existsSync(BUILT_SCAN);

/** `code` (an ES module body printing one line) run by node as `uid`; git there must not try root's config. */
export function nodeAsUid(uid: number, code: string): string {
  return execFileSync("setpriv", [...asUid(uid), process.execPath, "--input-type=module", "-e", code], {
    encoding: "utf8",
    env: { ...process.env, HOME: tmpdir(), XDG_CONFIG_HOME: tmpdir() },
  }).trim();
}

/** devflow's in-use scan run as `uid`, counting unreadable processes started since `since`: why in use, or null. */
export function scanAsUid(uid: number, dir: string, since: number): string | null {
  return JSON.parse(
    nodeAsUid(
      uid,
      `const m = await import(${JSON.stringify(BUILT_SCAN.href)}); console.log(JSON.stringify(m.whyDirInUse(${JSON.stringify(dir)}, ${since})));`,
    ),
  );
}

/** SIGKILL each kid and wait until it is reaped: a killed, unreaped kid is a zombie a later scan sees. */
export async function killAndReap(kids: ChildProcess[]): Promise<void> {
  await Promise.all(
    kids.splice(0).map(
      (kid) =>
        new Promise<void>((resolve) => {
          if (kid.exitCode !== null || kid.signalCode !== null) return resolve();
          kid.once("exit", () => resolve());
          kid.kill("SIGKILL");
        }),
    ),
  );
}

/**
 * A top dir every uid can enter (`prefix` under the temp dir, pushed to `dirs`) with a `checkout`
 * holding `a.bin` (4 KiB): what the reuse-scan tests leave a process sitting in, or mapping.
 */
export function scanTarget(prefix: string, dirs: string[]): { top: string; checkout: string } {
  const top = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(top);
  chmodSync(top, 0o755);
  const checkout = join(top, "checkout");
  mkdirSync(checkout);
  writeFileSync(join(checkout, "a.bin"), Buffer.alloc(4096));
  return { top, checkout };
}
