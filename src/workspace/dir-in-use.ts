import { readdirSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";

/**
 * Whether a live process has its working directory, root or an open file inside `dir` (read from
 * /proc; false where /proc cannot be read). A coder checkout kept idle for the next task must not
 * be one: a process the old coder left there would write into the next task's checkout, into the
 * tree its diffs start from (hostile review, session 16).
 */
export function dirInUseByAProcess(dir: string): boolean {
  let real: string;
  let pids: string[];
  try {
    real = realpathSync(dir);
    pids = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return false;
  }
  const inside = (target: string): boolean => target === real || target.startsWith(`${real}/`);
  for (const pid of pids) {
    for (const link of ["cwd", "root"]) if (inside(readLink(join("/proc", pid, link)))) return true;
    let fds: string[] = [];
    try {
      fds = readdirSync(join("/proc", pid, "fd"));
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) if (inside(readLink(join("/proc", pid, "fd", fd)))) return true;
  }
  return false;
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}
