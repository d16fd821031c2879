import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Resolves a command the way the child's PATH would, without spawning anything, so a missing CLI
 * is reported with its install step before any work starts.
 */
export function findExecutable(command: string, pathValue: string | undefined): string | null {
  if (command.includes("/")) return isAbsolute(command) && isExecutableFile(command) ? command : null;
  for (const dir of (pathValue ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}
