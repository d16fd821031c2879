import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runVerifierCommand } from "../../../verify/run-command.js";
import { CHECK_HOOKS, userHookPath } from "../../../workspace/index.js";
import type { LaneDeps } from "./deps.js";
import { type TaskCheckouts, verificationCheckoutAt, verifierMounts } from "./verification-checkout.js";

/** Where the commit message is handed to commit-msg: in the checkout, the one dir of devflow's home a confined run sees. */
const MESSAGE_FILE = ".devflow-commit-msg";
const shellQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * `commit.hooks: true` (the user's own config only, ADR 0047): the user's `pre-commit` and
 * `commit-msg` hooks run as checks of the completion commit. devflow's commit is `commit-tree` in
 * its own repository (ADR 0024, 0037), where no hook runs and none may change the tree: so each
 * hook runs confined like a test command (ADR 0031), in the verification checkout reset to exactly
 * the verified tree, with the test-command timeout. A hook that fails (or cannot run) refuses the
 * commit; what a hook changes (a formatter) is never committed, the commit is the verified tree.
 * Returns why the commit is refused, or null.
 */
export async function commitHookRefusal(
  state: TaskCheckouts,
  deps: Pick<LaneDeps, "options" | "signal">,
  tree: string,
  message: string,
  logDir: string,
): Promise<string | null> {
  for (const hook of CHECK_HOOKS) {
    const path = await userHookPath(state.repoRoot, hook);
    if (!path) continue;
    const checkout = await verificationCheckoutAt(state, tree);
    if (hook === "commit-msg") writeFileSync(join(checkout, MESSAGE_FILE), message);
    const run = await runVerifierCommand({
      command: hook === "commit-msg" ? `${shellQuote(path)} ${MESSAGE_FILE}` : shellQuote(path),
      cwd: checkout,
      timeoutMs: deps.options.commandTimeoutMs,
      logPath: join(logDir, `hook-${hook}.log`),
      mounts: verifierMounts(state),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (run.failure) return `the ${hook} hook (${path}) could not run to the end: ${run.failure}`;
    if (run.exitCode !== 0)
      return `the ${hook} hook (${path}) refused the commit (exit ${run.exitCode}): ${run.excerpt.trim().split("\n").slice(-3).join(" | ") || "no output"}`;
  }
  return null;
}
