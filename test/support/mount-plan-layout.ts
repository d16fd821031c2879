import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MountPlan } from "../../src/process/mount-namespace.js";

export interface PlanLayout {
  home: string;
  checkout: string;
  report: string;
  /** The plan: `repo` read-only, the home hidden, the checkout and the report dir exposed, `kept` bound back under /run. */
  plan: (kept: string) => MountPlan;
}

/**
 * The layout the mount plan tests run on, under `repo` (made here): devflow's home with the run's
 * checkout (`tracked.txt` = "checkout\n") and a writable report dir (ADR 0025/0069).
 */
export function planLayout(repo: string): PlanLayout {
  const home = join(repo, ".devflow");
  const checkout = join(home, "worktrees", "t");
  const report = join(home, "reports", "t");
  for (const dir of [checkout, report]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(checkout, "tracked.txt"), "checkout\n");
  const plan = (kept: string): MountPlan => ({
    readOnly: repo,
    hide: home,
    expose: checkout,
    alsoExpose: [{ path: report, writable: true }],
    runFiles: [kept],
  });
  return { home, checkout, report, plan };
}

/** A resolver file under a new dir in /run (`prefix`), the kind LOCKDOWN binds back; `made` gets the dir. */
export function keptRunFile(prefix: string, made: string[]): string {
  const dir = mkdtempSync(join("/run", prefix));
  made.push(dir);
  const kept = join(dir, "resolv.conf");
  writeFileSync(kept, "nameserver 127.0.0.1\n");
  return kept;
}
