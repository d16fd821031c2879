import { accessSync, constants, realpathSync } from "node:fs";
import { join } from "node:path";

/**
 * Where devflow's confinement looks for its own tools (util-linux's `unshare`, `setpriv`, `mount`,
 * coreutils): the system's directories, root's to write, never the PATH a run is given. Session-25
 * review: the run's PATH (the checkout's `node_modules/.bin`, a user-owned directory outside HOME,
 * an empty entry meaning the working directory) chose `unshare` itself and every tool the mount
 * script ran with its capabilities, `setpriv` included, so a planted `unshare` ran unconfined and a
 * planted `setpriv` kept every capability.
 */
export const SYSTEM_PATH = ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/run/current-system/sw/bin"].join(":");

const found = new Map<string, string | null>();

/** The real path of `name` in SYSTEM_PATH (executable), or null where it is not there. Cached. */
export function systemTool(name: string): string | null {
  const known = found.get(name);
  if (known !== undefined) return known;
  let path: string | null = null;
  for (const dir of SYSTEM_PATH.split(":")) {
    try {
      const candidate = join(dir, name);
      accessSync(candidate, constants.X_OK);
      path = realpathSync(candidate);
      break;
    } catch {
      // not here
    }
  }
  found.set(name, path);
  return path;
}
