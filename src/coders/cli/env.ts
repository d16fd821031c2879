import type { SourceEnv } from "./types.js";

/**
 * Never handed to a coder, whatever the caller passes: `EJ_RUNNER_PWD` points Junie's shim at
 * another tree (it only sets it when unset), `CLAUDECODE`/`CLAUDE_CODE_ENTRYPOINT` make Claude
 * refuse to start "inside another Claude Code session" (docs/origins.md#coder-clis).
 */
export const STRIPPED_ENV: readonly string[] = ["EJ_RUNNER_PWD", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"];

/** Variables every CLI gets so that it behaves as a batch job (no colours, no pager, no TTY UI). */
export const BATCH_ENV: Readonly<Record<string, string>> = { CI: "1", NO_COLOR: "1", TERM: "dumb" };

/** The named variables that are set (non-empty) in `source`. */
export function pickEnv(source: SourceEnv, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    if (value !== undefined && value !== "") picked[name] = value;
  }
  return picked;
}

export function hasAny(source: SourceEnv, names: readonly string[]): boolean {
  return names.some((name) => {
    const value = source[name];
    return value !== undefined && value !== "";
  });
}

/** Layers environments left to right and removes the stripped names last, so nothing re-adds them. */
export function mergeEnv(...layers: Array<Record<string, string>>): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) for (const [name, value] of Object.entries(layer)) merged[name] = value;
  for (const name of STRIPPED_ENV) delete merged[name];
  return merged;
}
