import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * Where devflow's config files are (ADR 0047). The user's file: `$DEVFLOW_CONFIG` when set (any
 * path; it must exist), else `$XDG_CONFIG_HOME/devflow/config.json`, else
 * `~/.config/devflow/config.json`. A repository's file sits at its root under one of
 * REPO_CONFIG_NAMES (all JSON); two of them at once is an error, so which one counts is never a guess.
 */
export const USER_CONFIG_ENV = "DEVFLOW_CONFIG";
export const REPO_CONFIG_NAMES = ["devflow.config.json", ".devflowrc", ".devflowrc.json"] as const;

export interface UserConfigLocation {
  path: string;
  /** Named by DEVFLOW_CONFIG: a missing file is an error rather than "no user config". */
  explicit: boolean;
}

export function userConfigLocation(env: NodeJS.ProcessEnv): UserConfigLocation {
  const named = env[USER_CONFIG_ENV]?.trim();
  if (named) return { path: resolve(named), explicit: true };
  const xdg = env.XDG_CONFIG_HOME?.trim();
  // The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), ".config");
  return { path: join(base, "devflow", "config.json"), explicit: false };
}

/** The root of the git checkout holding `path` (the nearest ancestor with a `.git`), or null. */
export function checkoutRoot(path: string): string | null {
  let dir = resolve(path);
  if (existsSync(dir) && !statSync(dir).isDirectory()) dir = dirname(dir);
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The config files at a repository's root (normally zero or one). */
export function repoConfigFiles(repoRoot: string): string[] {
  return REPO_CONFIG_NAMES.map((name) => join(repoRoot, name)).filter((file) => existsSync(file));
}
