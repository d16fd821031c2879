import { openSync, readdirSync, readFileSync } from "node:fs";

/** O_CLOEXEC as /proc/<pid>/fdinfo prints it (octal `flags:` field). */
const O_CLOEXEC = 0o2000000;

let inherited: readonly number[] | null = null;
/** What follows the three standard entries of every spawn's stdio array (built once). */
let tail: StdioEntry[] | null = null;

/**
 * The descriptors above 2 that devflow's process holds without close-on-exec: the ones its own
 * parent left open for it (a shell's `40>>lock`, a CI runner's pipe, a jobserver's fds). Node opens
 * everything of its own with O_CLOEXEC, and at startup marks fds 0..15 and the open ones right after
 * them (libuv's uv_disable_stdio_inheritance), but not one beyond a gap: those would reach every
 * child devflow starts, so a coder could read a lock file, write into a pipe devflow's caller reads,
 * or hold a socket open (measured: this machine's tool runner hands every process fd 251).
 * Read once from /proc/self/fdinfo (none of them can appear later: node never makes one); an
 * empty list where /proc is absent (macOS, Windows: ADR 0070 says what holds there).
 */
export function inheritedDescriptors(): readonly number[] {
  if (inherited !== null) return inherited;
  const found: number[] = [];
  let names: string[] = [];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    names = [];
  }
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags?.[1] !== undefined && (Number.parseInt(flags[1], 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // closed between the listing and the read (the directory's own fd): not inherited
    }
  }
  inherited = found.sort((a, b) => a - b);
  return inherited;
}

/** One entry of a spawn's stdio array, as devflow uses them. */
export type StdioEntry = "ignore" | "pipe" | number;

/**
 * The child's stdio with every inherited descriptor replaced by /dev/null (ADR 0070): node's spawn
 * leaves a descriptor it is not told about as it is, and it cannot close one in the child, but it
 * does put what the stdio array names at each index. The rest of the array is "ignore" (node's own
 * descriptors close at exec). `first` is the three standard entries.
 */
export function stdioClosingInherited(first: readonly [StdioEntry, "pipe", "pipe"]): StdioEntry[] {
  if (tail === null) {
    const fds = inheritedDescriptors();
    tail = [];
    if (fds.length > 0) {
      const nullFd = openSync("/dev/null", "r"); // kept for the process's life, close-on-exec
      for (let fd = 3; fd <= (fds.at(-1) ?? 2); fd++) tail.push(fds.includes(fd) ? nullFd : "ignore");
    }
  }
  return [...first, ...tail];
}
