import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/index.js";

/**
 * Hidden acceptance tests live here, outside every fixture repo devflow works on, and are never
 * put in a prompt or a cassette (hidden-secrecy.test.ts checks it): only the referee copies them,
 * into its own clone of the result branch, after the run has ended.
 */
export const HIDDEN_DIR = join(PACKAGE_ROOT, "scenarios", "hidden");

/** Where the referee puts the hidden tests inside its clone (they import `../src/...`). */
export const HIDDEN_MOUNT = ".referee-hidden";

/** File name → content of one hidden acceptance folder; empty when it does not exist. */
export function hiddenTests(name: string, dir = HIDDEN_DIR): Record<string, string> {
  const folder = join(dir, name);
  if (!existsSync(folder)) return {};
  const files: Record<string, string> = {};
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith(".test.mjs"))
    .sort())
    files[file] = readFileSync(join(folder, file), "utf8");
  return files;
}
