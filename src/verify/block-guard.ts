import { fileURLToPath } from "node:url";

/**
 * The guard of a Verification block's node programs (ADR 0063, block-exit-guard.cjs): a `--require`
 * preload that turns an early end of the program by the attempt's code into exit GUARD_EXIT_CODE
 * with one `devflow-block-guard: tamper: ...` line on stderr. This module is devflow's side: the
 * environment that switches it on for one block run, and the reading of its verdict.
 */
const GUARD_PRELOAD = fileURLToPath(new URL("./block-exit-guard.cjs", import.meta.url));

/** The preload's environment variable (read by block-exit-guard.cjs). */
export const BLOCK_GUARD_ENV = "DEVFLOW_BLOCK_GUARD";

/** The exit code the guard gives a refused program (block-exit-guard.cjs GUARD_EXIT_CODE). */
export const GUARD_EXIT_CODE = 86;

const TAMPER_LINE = /^devflow-block-guard: (tamper: .*)$/m;

/** Beyond this the changed files are not listed: every repository file then counts as changed. */
const MAX_LISTED_BYTES = 64 * 1024;

export interface BlockGuard {
  /** NODE_OPTIONS words, put before devflow's other preloads so the guard loads first. */
  nodeOptions: string;
  env: Record<string, string>;
}

/**
 * The guard for a block run in `root` (the verification checkout), where `changedFiles` (paths
 * relative to it) are the attempt's: a program ended from one of them is refused.
 */
export function blockGuard(root: string, changedFiles: readonly string[]): BlockGuard {
  let config = JSON.stringify({ root, changed: changedFiles });
  // Fail closed on a huge change: every file of the repository outside node_modules is the attempt's.
  if (config.length > MAX_LISTED_BYTES) config = JSON.stringify({ root, changed: "*" });
  return {
    nodeOptions: `--require="${GUARD_PRELOAD.replace(/["\\]/g, (c) => `\\${c}`)}"`,
    env: { [BLOCK_GUARD_ENV]: config },
  };
}

/**
 * The guard's finding in a block's failing output, or null. Code under test that prints the line
 * itself gains nothing: the block failed by its exit code already, this only says why.
 */
export function guardTamper(output: string, exitCode: number | null): string | null {
  if (exitCode === 0) return null;
  return TAMPER_LINE.exec(output)?.[1] ?? null;
}
