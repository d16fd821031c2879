import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";

/**
 * Whether a live process other than devflow's own has its working directory, root, an open file or
 * a mapped file inside `dir` (read from /proc; false where /proc cannot be read: macOS, where ADR 0020's marker
 * layer is the only one too). A coder checkout kept idle or claimed for the next task must not be
 * one: a process the old coder left there follows the checkout's rename and writes into the next
 * task's checkout, into the tree its diffs start from (hostile review, session 16). Synchronous and
 * non-blocking (readlink of /proc links never waits on the process read); ~300 processes: see ADR 0050.
 */
export function dirInUseByAProcess(dir: string): boolean {
  let real: string;
  let pids: string[];
  try {
    real = realpathSync(dir);
    pids = readdirSync("/proc").filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
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
      continue; // gone, or not ours to read (another user's process cannot write into our files)
    }
    for (const fd of fds) if (inside(readLink(join("/proc", pid, "fd", fd)))) return true;
    // A shared writable mapping outlives its fd: mmap, close, chdir out, and the process still
    // writes the file (session-17 review, coder-checkout-reuse-follows-an-mmapped-file).
    if (mapsAFileInside(pid, real)) return true;
  }
  return false;
}

/** Whether /proc/<pid>/maps names a file inside `real` (a " (deleted)" suffix still counts). */
function mapsAFileInside(pid: string, real: string): boolean {
  let maps = "";
  try {
    maps = readFileSync(join("/proc", pid, "maps"), "utf8");
  } catch {
    return false; // gone, or not ours to read
  }
  // Lines are `range perms offset dev inode path`; the path is the one field starting with "/".
  for (const line of maps.split("\n")) {
    const at = line.indexOf(" /");
    if (at === -1) continue;
    const path = line.slice(at + 1);
    if (path === real || path.startsWith(`${real}/`) || path.startsWith(`${real} (deleted)`)) return true;
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
