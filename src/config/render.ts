import type { ConfigSource, ResolvedConfig } from "./resolve.js";
import { CONFIG_KEYS } from "./settings.js";

/** One value of `devflow doctor --json`'s `config.values`: the value and where it came from. */
export interface ConfigValueReport {
  value: unknown;
  source: ConfigSource["kind"];
  /** The file path, variable or flag; null for a default. */
  from: string | null;
}

export interface ConfigReport {
  files: ResolvedConfig["files"];
  values: Record<string, ConfigValueReport>;
}

const fromOf = (source: ConfigSource): string | null =>
  source.kind === "default"
    ? null
    : source.kind === "user" || source.kind === "repo"
      ? source.path
      : source.name;

/** The effective config for `devflow doctor --json` (snake_case like the rest of its report). */
export function configReport(config: ResolvedConfig): ConfigReport {
  const values: Record<string, ConfigValueReport> = {};
  for (const key of CONFIG_KEYS) {
    const source = config.sources[key];
    values[key] = { value: config.values[key], source: source.kind, from: fromOf(source) };
  }
  return { files: config.files, values };
}

/** Where a value came from, as `devflow doctor` and the CLI's messages say it. */
export const sourceText = (source: ConfigSource): string => {
  switch (source.kind) {
    case "default":
      return "default";
    case "user":
      return `user ${source.path}`;
    case "repo":
      return `repo ${source.path}`;
    case "env":
      return `env ${source.name}`;
    case "flag":
      return `flag ${source.name}`;
  }
};

/** The effective config as doctor prints it: key, value, where it came from. */
export function renderConfig(config: ResolvedConfig): string {
  const rows = CONFIG_KEYS.map((key) => [
    key,
    JSON.stringify(config.values[key]),
    sourceText(config.sources[key]),
  ]);
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  const { files } = config;
  const lines = [
    "Configuration (default < user < repo < env < flag):",
    `  user file: ${files.user ?? `${files.user_path} (none)`}`,
    `  repo file: ${files.repo ?? (files.repo_root ? `none in ${files.repo_root}` : "no repository")}${files.repo && files.repo_trusted ? " (trusted)" : ""}`,
    ...rows.map(
      ([key = "", value = "", source = ""]) =>
        `  ${key.padEnd(widths[0] ?? 0)}  ${value.padEnd(widths[1] ?? 0)}  ${source}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
