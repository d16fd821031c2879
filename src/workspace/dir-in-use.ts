import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";

/**
 * What makes `dir` in use, or null: a live process other than devflow's own with its working
 * directory, root, an open file or a mapped file inside `dir` (read from /proc; null where /proc
 * cannot be read: macOS, where ADR 0020's marker layer is the only one too). A coder checkout kept idle or claimed for the next task must not be
 * one: a process the old coder left there follows the checkout's rename and writes into the next
 * task's checkout, into the tree its diffs start from (hostile review, session 16). Synchronous and
 * non-blocking (readlink of /proc links never waits on the process read); ~300 processes: see ADR 0050.
 *
 * `unreadableSince` (ms since the epoch; 0 counts every one) is for the processes the scan cannot read:
 * one of devflow's own uid that made itself non-dumpable (prctl(PR_SET_DUMPABLE, 0), or the exec
 * of an execute-only binary: no privilege needed) hides its /proc links from devflow when devflow
 * runs without CAP_SYS_PTRACE, yet can write everything devflow can (session-18 review, attack18).
 * Such a process counts as in use when it started at or after `unreadableSince` (less a margin for
 * the clock arithmetic below): the claim passes the time the old task began, so a leftover of that
 * task counts and the user's own agents started before it (ssh-agent, gpg-agent) do not stop reuse
 * for good. Another uid's unreadable process cannot write into devflow's files and never counts.
 */
export function whyDirInUse(dir: string, unreadableSince: number): string | null {
  let real: string;
  let pids: string[];
  try {
    real = realpathSync(dir);
    pids = readdirSync("/proc").filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  } catch {
    return null;
  }
  const inside = (target: string): boolean => target === real || target.startsWith(`${real}/`);
  const used = (pid: string, what: string): string => `process ${pid} has its ${what} inside ${real}`;
  for (const pid of pids) {
    let unreadable = false;
    const link = (path: string): string => {
      const read = readLink(path);
      if (read.denied) unreadable = true;
      return read.target;
    };
    // Every thread, not only the leader `/proc/<pid>/{cwd,root,fd}` shows: a thread that called
    // unshare(CLONE_FS) or unshare(CLONE_FILES) has its own working directory, root or fd table,
    // seen only under `/proc/<pid>/task/<tid>` (attack23: a thread sat in the checkout unseen).
    // A zombie or dead thread is skipped: it has no working directory, files or memory left and runs
    // no code, yet the kernel hands its /proc entries to root, so as an ordinary user they answer
    // EACCES like a non-dumpable process's (a just-killed, not yet reaped leftover blocked a claim).
    const live = threadDirs(pid).filter((task) => !exited(task));
    for (const task of live) {
      for (const name of ["cwd", "root"]) if (inside(link(join(task, name)))) return used(pid, name);
      let fds: string[] = [];
      try {
        fds = readdirSync(join(task, "fd"));
      } catch (error) {
        if (denied(error)) unreadable = true;
      }
      for (const fd of fds) if (inside(link(join(task, "fd", fd)))) return used(pid, `fd ${fd}`);
    }
    // A shared writable mapping outlives its fd: mmap, close, chdir out, and the process still
    // writes the file (session-17 review, coder-checkout-reuse-mmap-attack7). The threads of a
    // process share one address space, read through a live thread: the leader's `/proc/<pid>/maps`
    // is empty once the main thread has exited while the others run (pthread_exit in main).
    const maps = mapsAFileInside(live, real);
    if (maps === "inside") return used(pid, "mapped file");
    if (maps === "denied") unreadable = true;
    if (unreadable && ownProcessStartedSince(pid, unreadableSince))
      return `process ${pid} of devflow's uid started after ${new Date(unreadableSince).toISOString()} and its /proc links cannot be read (non-dumpable): it may be inside ${real}`;
  }
  return null;
}

/**
 * `/proc/<pid>/task/<tid>` of each thread of `pid`; the process's own `/proc/<pid>` when its task
 * list cannot be read (gone since the listing, or not ours: its links then answer the same).
 */
function threadDirs(pid: string): string[] {
  try {
    const tids = readdirSync(join("/proc", pid, "task"));
    if (tids.length > 0) return tids.map((tid) => join("/proc", pid, "task", tid));
  } catch {
    // fall through
  }
  return [join("/proc", pid)];
}

/**
 * Whether the address space of the threads at `live` maps a file inside `real` (a " (deleted)"
 * suffix still counts). The first thread whose maps read non-empty answers for all: one that exited
 * since the listing reads empty, so the next is asked.
 */
function mapsAFileInside(live: string[], real: string): "inside" | "denied" | "no" {
  let maps = "";
  for (const task of live) {
    try {
      maps = readFileSync(join(task, "maps"), "utf8");
    } catch (error) {
      if (denied(error)) return "denied";
      continue; // gone
    }
    if (maps !== "") break;
  }
  // Lines are `range perms offset dev inode path`; the path is the one field starting with "/".
  for (const line of maps.split("\n")) {
    const at = line.indexOf(" /");
    if (at === -1) continue;
    const path = line.slice(at + 1);
    if (path === real || path.startsWith(`${real}/`) || path.startsWith(`${real} (deleted)`)) return "inside";
  }
  return "no";
}

/**
 * Whether the thread at `task` (a `/proc/<pid>/task/<tid>` or `/proc/<pid>` dir) has exited: state Z
 * (zombie, waiting to be reaped) or X (dead), or gone altogether. Its stat stays readable to every
 * user. The third field of stat follows the command name, which is in parentheses and may hold
 * spaces or ")": read after the last ")".
 */
function exited(task: string): boolean {
  let stat: string;
  try {
    stat = readFileSync(join(task, "stat"), "utf8");
  } catch (error) {
    return !denied(error); // gone since the listing; unreadable (never seen): live, fail closed
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}

/**
 * Clock slack for comparing a process's start with a wall-clock time, counted towards "started
 * since" (fail closed): /proc/stat's btime is whole seconds (up to 1 s early), and the boot time
 * the kernel derives moves with clock adjustments.
 */
const START_SLACK_MS = 2000;

/**
 * Whether `pid` belongs to devflow's uid (any of its real, effective, saved or file-system uids:
 * any of them lets it write devflow's files) and started at or after `sinceMs` less the slack.
 * Its status and stat stay readable when its links are not. Unknown start time: counted (fail closed).
 */
function ownProcessStartedSince(pid: string, sinceMs: number): boolean {
  const uid = process.getuid?.();
  let status: string;
  try {
    status = readFileSync(join("/proc", pid, "status"), "utf8");
  } catch {
    return false; // gone since the listing
  }
  const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  if (uid === undefined || !uids.includes(uid)) return false;
  const started = processStartMs(pid);
  return started === null || started >= sinceMs - START_SLACK_MS;
}

/**
 * When `pid` started, in ms since the epoch: field 22 of /proc/<pid>/stat (clock ticks after boot,
 * in USER_HZ, which the kernel fixes at 100 for userspace) plus /proc/stat's btime. Null if unknown.
 */
function processStartMs(pid: string): number | null {
  try {
    const stat = readFileSync(join("/proc", pid, "stat"), "utf8");
    // The command name (field 2) is in parentheses and may hold spaces or ")": split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[22 - 3]);
    const btime = Number(/^btime\s+(\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(btime) || btime === 0) return null;
    return btime * 1000 + ticks * 10;
  } catch {
    return null;
  }
}

function readLink(path: string): { target: string; denied: boolean } {
  try {
    return { target: readlinkSync(path), denied: false };
  } catch (error) {
    return { target: "", denied: denied(error) };
  }
}

/** EACCES/EPERM: the entry is there but not ours to read (ENOENT/ESRCH: the process is gone). */
function denied(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "EACCES" || code === "EPERM";
}
