import { resolve } from "node:path";

/** The repository `runs`/`show`/`clean` read: `--repo`, else the one the current directory is in. */
export async function taskRepo(repo: string | undefined): Promise<string> {
  const { assertGitRepo } = await import("../workspace/index.js");
  return assertGitRepo(resolve(repo ?? process.cwd()));
}

/** `45s`, `12m`, `3h`, `5d`: how long ago, for listings. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** `1.2 MB`, `512 B`: sizes in the listings people read. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
