import { readFile, stat } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { type DaemonConfig, DaemonConfig as DaemonConfigSchema } from "../artifacts/schemas/ticket.js";
import { DevflowError } from "../errors/index.js";
import { daemonConfigCandidates } from "../home/daemon-paths.js";

/** A config as loaded: the values, the file they came from (null: defaults) and its stamp. */
export interface LoadedDaemonConfig {
  config: DaemonConfig;
  path: string | null;
  /** Changes whenever a candidate file appears, goes, or is rewritten (the reload's cheap check). */
  stamp: string;
}

/**
 * The daemon's config: `<data root>/config.json`, or `config.yaml`/`config.yml` (ADR 0054). None
 * means the defaults: no known labels (so any label a ticket names is unknown), 64 KiB tickets,
 * 300 s lease staleness. Two of them is an error naming both (which one counts would be a guess);
 * a file that does not parse or has an unknown key is refused with the path and the key.
 */
export async function readDaemonConfig(root: string): Promise<DaemonConfig> {
  return (await loadDaemonConfig(root)).config;
}

export async function loadDaemonConfig(root: string): Promise<LoadedDaemonConfig> {
  const { present, stamp } = await configStamp(root);
  if (present.length > 1)
    throw new DevflowError(
      "CONFIG_INVALID",
      `both ${present.join(" and ")} exist: keep one daemon config file and remove the other`,
    );
  const path = present[0];
  if (path === undefined) return { config: DaemonConfigSchema.parse({}), path: null, stamp };
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new DevflowError("DATA_ROOT_UNUSABLE", `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { config: parseDaemonConfig(path, text), path, stamp };
}

/** Which candidate files exist, and a stamp of their identity, size and mtime. */
export async function configStamp(root: string): Promise<{ present: string[]; stamp: string }> {
  const present: string[] = [];
  const parts: string[] = [];
  for (const path of daemonConfigCandidates(root)) {
    try {
      const s = await stat(path);
      present.push(path);
      parts.push(`${path}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        present.push(path);
        parts.push(`${path}:${(error as NodeJS.ErrnoException).code}`);
      }
    }
  }
  return { present, stamp: parts.join("|") };
}

function parseDaemonConfig(path: string, text: string): DaemonConfig {
  const json = path.endsWith(".json");
  let value: unknown;
  try {
    // An empty YAML file is an empty mapping (the defaults); duplicate YAML keys are refused.
    value = json ? JSON.parse(text) : (parseYaml(text, { uniqueKeys: true }) ?? {});
  } catch (error) {
    throw new DevflowError(
      "CONFIG_INVALID",
      `${path} is not ${json ? "JSON" : "YAML"}: ${(error as Error).message.split("\n")[0]}`,
      { cause: error },
    );
  }
  const parsed = DaemonConfigSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown key ${issue.keys.join(", ")}`
        : `${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
    throw new DevflowError(
      "CONFIG_INVALID",
      `${path}: ${problems.join("; ")} (see schemas/daemon_config.schema.json)`,
    );
  }
  return parsed.data;
}
