import { existsSync } from "node:fs";
import { relative } from "node:path";
import { DevflowError } from "../errors/index.js";
import {
  checkoutRoot,
  REPO_CONFIG_NAMES,
  repoConfigFiles,
  userConfigLocation,
} from "../home/config-paths.js";
import { readConfigFile } from "./read-file.js";
import { assertRepoSettingsAllowed, repoIsTrusted } from "./repo-trust.js";
import { CONFIG_KEYS, type ConfigKey, DEFAULTS, type EffectiveConfig, ENV_VARS } from "./settings.js";

/** Where a value came from, lowest to highest precedence (ADR 0047). */
export type ConfigSource =
  | { kind: "default" }
  | { kind: "user"; path: string }
  | { kind: "repo"; path: string }
  | { kind: "env"; name: string }
  | { kind: "flag"; name: string };

export interface ResolvedConfig {
  values: EffectiveConfig;
  sources: Record<ConfigKey, ConfigSource>;
  files: {
    /** The user's file when it exists; `user_path` is where it is looked for. */
    user: string | null;
    user_path: string;
    repo: string | null;
    repo_root: string | null;
    /** The user's trust_repo_config covers this repository (its file may set every key). */
    repo_trusted: boolean;
  };
}

/** A flag the user gave (commander's value source "cli"), already validated by commander. */
export interface FlagValue {
  value: unknown;
  /** As typed, e.g. `--model-timeout`. */
  flag: string;
}

export interface ResolveConfigInput {
  env: NodeJS.ProcessEnv;
  /** A local path in the repository the command works on; null for a git URL or no repository. */
  repo: string | null;
  flags?: Partial<Record<ConfigKey, FlagValue>>;
}

/**
 * The effective configuration of one command: built-in defaults < the user's file < the
 * repository's file (only the keys repo-trust allows) < the environment < flags. Called once per
 * command, before any work; every problem is a one-line CONFIG_* (or the variable's own) error.
 */
export function resolveConfig(input: ResolveConfigInput): ResolvedConfig {
  const values = { ...DEFAULTS } as Record<ConfigKey, unknown>;
  const sources = Object.fromEntries(CONFIG_KEYS.map((k) => [k, { kind: "default" }])) as Record<
    ConfigKey,
    ConfigSource
  >;
  const apply = (settings: Partial<Record<ConfigKey, unknown>>, source: ConfigSource) => {
    for (const [key, value] of Object.entries(settings) as [ConfigKey, unknown][]) {
      values[key] = value;
      sources[key] = source;
    }
  };

  const location = userConfigLocation(input.env);
  let userFile: string | null = null;
  if (existsSync(location.path)) userFile = location.path;
  else if (location.explicit)
    throw new DevflowError(
      "CONFIG_INVALID",
      `${location.path}: no such config file (named by DEVFLOW_CONFIG; fix the path or unset it)`,
    );
  if (userFile) apply(readConfigFile(userFile), { kind: "user", path: userFile });

  const repoRoot = input.repo === null ? null : checkoutRoot(input.repo);
  let repoFile: string | null = null;
  let trusted = false;
  if (repoRoot) {
    const found = repoConfigFiles(repoRoot);
    if (found.length > 1)
      throw new DevflowError(
        "CONFIG_INVALID",
        `${repoRoot}: ${found.map((f) => relative(repoRoot, f)).join(" and ")} both exist; keep one (devflow reads one of ${REPO_CONFIG_NAMES.join(", ")})`,
      );
    repoFile = found[0] ?? null;
    trusted = repoIsTrusted(values.trust_repo_config as EffectiveConfig["trust_repo_config"], repoRoot);
    if (repoFile) {
      const settings = readConfigFile(repoFile);
      assertRepoSettingsAllowed(settings, repoFile, repoRoot, trusted, location.path);
      apply(settings, { kind: "repo", path: repoFile });
    }
  }

  for (const [key, spec] of Object.entries(ENV_VARS) as [
    ConfigKey,
    NonNullable<(typeof ENV_VARS)[ConfigKey]>,
  ][]) {
    const raw = input.env[spec.name]?.trim();
    if (raw) apply({ [key]: spec.parse(raw, spec.name) }, { kind: "env", name: spec.name });
  }
  for (const [key, flag] of Object.entries(input.flags ?? {}) as [ConfigKey, FlagValue][]) {
    if (flag.value !== undefined) apply({ [key]: flag.value }, { kind: "flag", name: flag.flag });
  }
  return {
    values: values as unknown as EffectiveConfig,
    sources,
    files: {
      user: userFile,
      user_path: location.path,
      repo: repoFile,
      repo_root: repoRoot,
      repo_trusted: trusted,
    },
  };
}
