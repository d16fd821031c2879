import { readFileSync } from "node:fs";
import type { z } from "zod";
import { ConfigFile } from "../artifacts/schemas/config-file.js";
import { DevflowError } from "../errors/index.js";
import type { ConfigKey } from "./settings.js";

/** Keys people reach for that would put a secret in a file: refused with what to do instead. */
const SECRET_KEYS = /(^|_)(api_?key|key|token|secret|password)$/i;

/**
 * Reads one config file and returns its settings by dotted key (only the keys it sets). Anything
 * wrong is one line naming the file, the key and why (zod's issue path): a config that does not
 * mean what its author thinks must not run.
 */
export function readConfigFile(path: string): Partial<Record<ConfigKey, unknown>> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const why = error instanceof Error && "code" in error ? String(error.code) : String(error);
    throw new DevflowError("CONFIG_INVALID", `${path}: cannot read the config file (${why})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new DevflowError(
      "CONFIG_INVALID",
      `${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) throw new DevflowError("CONFIG_INVALID", `${path}: ${describeIssue(parsed.error)}`);
  const flat: Partial<Record<ConfigKey, unknown>> = {};
  for (const [section, value] of Object.entries(parsed.data)) {
    if (section === "$schema") continue;
    if (section === "trust_repo_config") flat.trust_repo_config = value;
    else
      for (const [key, setting] of Object.entries(value as Record<string, unknown>))
        if (setting !== undefined) flat[`${section}.${key}` as ConfigKey] = setting;
  }
  return flat;
}

/** The first issue as `key.path: why`, and how many more there are. */
function describeIssue(error: z.ZodError): string {
  const [first, ...rest] = error.issues;
  if (!first) return "invalid config";
  const more = rest.length > 0 ? ` (and ${rest.length} more problem(s))` : "";
  if (first.code === "unrecognized_keys") {
    const where = first.path.length > 0 ? `${first.path.join(".")}.` : "";
    const secret = first.keys.find((key) => SECRET_KEYS.test(key));
    if (secret)
      return `${where}${secret}: a key never goes in a config file; put it in an environment variable and name that variable in model.api_key_env${more}`;
    return `${first.keys.map((key) => `${where}${key}`).join(", ")}: unknown key (see schemas/config_file.schema.json)${more}`;
  }
  const key = first.path.length > 0 ? first.path.join(".") : "(the file)";
  return `${key}: ${first.message}${more}`;
}
