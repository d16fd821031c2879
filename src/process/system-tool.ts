import { accessSync, constants, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

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

/**
 * The PATH the confinement's scripts run their tools by: the real directory of each tool first,
 * then SYSTEM_PATH. On NixOS the system's tools are links under `/run/current-system`, which the
 * host-service cover hides (ADR 0069): found by name through SYSTEM_PATH they were gone after the
 * cover, the probe failed and runs got detection only. Their real directories (`/nix/store/...`)
 * stay.
 */
export function confinementToolsPath(
  names: readonly string[],
  lookup: (name: string) => string | null = systemTool,
): string {
  const real = names.map(lookup).flatMap((path) => (path === null ? [] : [dirname(path)]));
  return [...new Set([...real, ...SYSTEM_PATH.split(":")])].join(":");
}
