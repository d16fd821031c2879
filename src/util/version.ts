import { readFileSync } from "node:fs";
import { join } from "node:path";
import { INSTALL_ROOT } from "./paths.js";

let memo: string | null = null;

/**
 * devflow's version, from its installed package.json: what `--version` prints, the daemon's status
 * and health answer, and a playground report names. One owner: three copies (one hard-coded in
 * the CLI) had drifted apart in how they read it. "unknown" when the file cannot be read.
 */
export function devflowVersion(): string {
  if (memo !== null) return memo;
  try {
    const pkg: unknown = JSON.parse(readFileSync(join(INSTALL_ROOT, "package.json"), "utf8"));
    const version =
      typeof pkg === "object" && pkg !== null ? (pkg as { version?: unknown }).version : undefined;
    memo = typeof version === "string" ? version : "unknown";
  } catch {
    memo = "unknown";
  }
  return memo;
}
