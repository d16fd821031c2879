import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runVerifierCommand, type VerifierCommandRun } from "../../src/verify/run-command.js";

/** A user repository with devflow's home and a verification checkout, as runVerifierCommand sees them. */
export interface VerifyCheckoutLayout {
  repo: string;
  home: string;
  /** `.devflow/verify/t`, holding the given files. */
  checkout: string;
  /** `.devflow/iterate/t/<name>.log`: the run's log (its upper layer goes beside it). */
  log: string;
}

/**
 * The layout the verification-run tests start from: a temp repository (pushed to `dirs` for the
 * caller's afterEach to remove) whose `.devflow/verify/t` holds `files` (paths relative to it).
 */
export function verifyCheckoutLayout(
  dirs: string[],
  prefix: string,
  files: Record<string, string>,
  logName: string,
): VerifyCheckoutLayout {
  const repo = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(repo);
  const home = join(repo, ".devflow");
  const checkout = join(home, "verify", "t");
  mkdirSync(checkout, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(checkout, path)), { recursive: true });
    writeFileSync(join(checkout, path), content);
  }
  return { repo, home, checkout, log: join(home, "iterate", "t", `${logName}.log`) };
}

/**
 * `command` run as a verification command in the layout's checkout (20 s timeout, its log), behind
 * the checkout overlay (the repository read-only, the home hidden) unless `overlay` is false (the
 * fallback without mounts). `cwd` and `logPath` default to the checkout and the layout's log.
 */
export function runInCheckout(
  layout: VerifyCheckoutLayout,
  command: string,
  options: { overlay?: boolean; cwd?: string; logPath?: string } = {},
): Promise<VerifierCommandRun> {
  const { repo, home, checkout, log } = layout;
  return runVerifierCommand({
    command,
    cwd: options.cwd ?? checkout,
    timeoutMs: 20_000,
    logPath: options.logPath ?? log,
    ...(options.overlay === false ? {} : { mounts: { readOnly: repo, hide: home } }),
  });
}
