import { readFile } from "node:fs/promises";
import { type DaemonConfig, DaemonConfig as DaemonConfigSchema } from "../artifacts/schemas/ticket.js";
import { DevflowError } from "../errors/index.js";
import { daemonConfigPath } from "../home/daemon-paths.js";

/**
 * The daemon's config, `<data root>/config.json` (DaemonConfig). Absent means the defaults: no
 * known labels (so any label a ticket names is unknown), 64 KiB tickets, 300 s lease staleness. A
 * file that is not JSON or has an unknown key is refused with the path and the key, never ignored.
 * Hot reload, YAML and the worker's keys come with the worker (ADR 0051).
 */
export async function readDaemonConfig(root: string): Promise<DaemonConfig> {
  const path = daemonConfigPath(root);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return DaemonConfigSchema.parse({});
    throw new DevflowError("DATA_ROOT_UNUSABLE", `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DevflowError("CONFIG_INVALID", `${path} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
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
