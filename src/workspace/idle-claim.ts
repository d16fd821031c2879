import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * A private name in `.idle/` that a checkout is renamed to before it is deleted (ADR 0050): the
 * rename is atomic, so whoever renames a checkout owns all of it, and the name is no task id, so
 * neither listings nor reuse see it. `.clean-<pid>-<12 hex>`: the pid says whose it is, so
 * `devflow clean` can sweep a claim whose process is gone (abandonedClaims) and leaves a live one's
 * alone. The one owner of that name: `devflow clean` and task setup both claim with it.
 */
export function idleClaimPath(idleDirPath: string): string {
  return join(idleDirPath, `.clean-${process.pid}-${randomBytes(6).toString("hex")}`);
}

/** The pid of a claim name idleClaimPath made, null for any other name. */
export function idleClaimOwner(name: string): number | null {
  const pid = /^\.clean-(\d+)-[0-9a-f]{12}$/.exec(name)?.[1];
  return pid === undefined ? null : Number(pid);
}

/**
 * Removes `dir` (a real directory, claimed by its caller; `idleDirPath` is `.idle` in place, never
 * through a link: idle-dir.ts), or when a process still writes into it
 * (a coder's leftover: ENOTEMPTY however often the walk is retried) moves it out of the way to a
 * claim in `.idle/` (on the same filesystem, a rename cannot fail on what is inside) and tries once
 * more there. What is still left then stays as a claim that `devflow clean` sweeps once this
 * process has ended (CI, stop 33: a background writer in a declined checkout made task setup throw
 * ENOTEMPTY instead of checking the base out afresh). `dir`'s path is free when this returns.
 */
export function removeOrSetAside(dir: string, idleDirPath: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2, retryDelay: 50 });
    return;
  } catch {
    // set aside below
  }
  mkdirSync(idleDirPath, { recursive: true });
  const claim = idleClaimPath(idleDirPath);
  try {
    renameSync(dir, claim);
  } catch (error) {
    // Gone meanwhile (another task or clean claimed it): the path is free, which is all that is asked.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    if (lstatSync(claim).isDirectory()) rmSync(claim, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    // left for `devflow clean` (abandonedClaims), which sweeps it once this process is gone
  }
}
