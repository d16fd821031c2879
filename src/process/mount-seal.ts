import { readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";

/**
 * The rest of the machine sealed for a confined run (ADR 0075): every file system the run can
 * reach read-only but for what the plan makes writable, and the temp directories private to the
 * run. Before, a confined run could write anywhere its uid could (ADR 0068: `/tmp`, the
 * repository's parent, as root `/usr`): a coder of one task planted a runner config above the
 * repository and a later task's seam loaded it (issue 9, fourth review). This module decides,
 * from devflow's side, what the namespace's setup (mount-namespace.ts) must do; the shell there
 * does it.
 */

/** One mount of the mount table as devflow sees it before the run. */
export interface HostMount {
  /** Where it is mounted, decoded (mountinfo escapes space, tab, newline and backslash as octal). */
  path: string;
  /** The file system type (`ext4`, `tmpfs`, `proc`...). */
  type: string;
  /** Whether the mount (its per-mount flag) is read-only already. */
  readOnly: boolean;
}

/**
 * File system types the read-only pass leaves as they are: `proc` (the run's own, fresh; the
 * machine-wide parts of it are LOCKDOWN's case), `devpts` (terminals), `autofs` and `binfmt_misc`
 * (a remount would trigger or change nothing a run can write), and the cgroup hierarchies: process
 * control, no file a later run could load (`release_agent` needs CAP_SYS_ADMIN since Linux 5.17),
 * and one remount each (eleven on a cgroup v1 machine) was most of the seal's cost per run.
 * Everything else is remounted, kernel interfaces too (the review of this change: as uid 0 without
 * capabilities a run could make a POSIX message queue or a hugetlbfs file that outlived it, or
 * write `uevent_helper` in sysfs, a program the kernel runs as root).
 */
const LEFT_AS_THEY_ARE = new Set(["proc", "devpts", "autofs", "binfmt_misc", "cgroup", "cgroup2"]);

const decode = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

/**
 * The mounts of `/proc/self/mountinfo` (devflow's own namespace, which the run's is copied from),
 * one per mount point: the last listed, which is the one on top where mounts are stacked.
 */
export function hostMounts(mountinfo = readMountinfo()): HostMount[] {
  const byPath = new Map<string, HostMount>();
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const separator = fields.indexOf("-", 6);
    if (separator < 0 || fields[4] === undefined || fields[5] === undefined) continue;
    const path = decode(fields[4]);
    byPath.delete(path);
    byPath.set(path, {
      path,
      type: fields[separator + 1] ?? "",
      readOnly: fields[5].split(",").includes("ro"),
    });
  }
  return [...byPath.values()];
}

function readMountinfo(): string {
  try {
    return readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return "";
  }
}

/** `path` is `dir` or inside it (both absolute, normalized). */
export const within = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);

/**
 * The temp directories a run gets a private copy of: `/tmp` and `TMPDIR` (`os.tmpdir()`), behind an
 * overlay (their files visible, what the run writes kept in memory and gone with the run), and
 * `/dev/shm`, covered by an empty tmpfs (shared memory: Python's multiprocessing, browsers).
 * `/var/tmp` is not among them: read-only like the rest (one mount fewer per run; tools write
 * `TMPDIR` or `/tmp`). By real path, existing directories only, never `/`, none inside another.
 */
export function tempRoots(): TempRoot[] {
  const found: TempRoot[] = [];
  const add = (path: string, how: TempRoot["how"]): void => {
    const real = realDir(path);
    if (real === null || real === "/") return;
    if (found.some((t) => within(real, t.path) || within(t.path, real))) return;
    found.push({ path: real, how, mode: statSync(real).mode & 0o7777 });
  };
  add("/tmp", "overlay");
  add(tmpdir(), "overlay");
  add("/dev/shm", "empty");
  return found;
}

/**
 * `DEVFLOW_WRITABLE_DIRS`: directories (absolute, `:`-separated) every confined run may write
 * besides its checkout and its own scratch or temp dir, such as a shared cache (`~/.cache/pip`).
 * Whatever a run leaves there a later run can read: name only what no test run loads code from.
 */
export const WRITABLE_DIRS_ENV = "DEVFLOW_WRITABLE_DIRS";

/** The directories of `DEVFLOW_WRITABLE_DIRS` by real path; a one-line error for any that is not an existing absolute directory. */
export function extraWritableDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (const entry of (env[WRITABLE_DIRS_ENV] ?? "").split(":")) {
    const path = entry.trim();
    if (path === "") continue;
    const real = path.startsWith("/") ? realDir(path) : null;
    if (real === null || real === "/")
      throw new Error(
        `${WRITABLE_DIRS_ENV} names ${JSON.stringify(path)}: give absolute paths of existing directories other than /, separated by ":"`,
      );
    if (!out.includes(real)) out.push(real);
  }
  return out;
}

/** `DEVFLOW_PRIVATE_TMP_SIZE`: how much a run may write into its private /tmp and /dev/shm. */
export const PRIVATE_TMP_SIZE_ENV = "DEVFLOW_PRIVATE_TMP_SIZE";
const DEFAULT_PRIVATE_TMP_SIZE = "25%";

/**
 * The size cap of a run's private temp layers (tmpfs `size=`: bytes with k/m/g, or a share of RAM
 * as `N%`). The layers live in memory, as a tmpfs `/tmp` does; uncapped, each run could take half
 * the machine's RAM (review of ADR 0075). A run that writes more gets ENOSPC in its own output.
 */
export function privateTmpSize(env: NodeJS.ProcessEnv = process.env): string {
  const value = env[PRIVATE_TMP_SIZE_ENV]?.trim() || DEFAULT_PRIVATE_TMP_SIZE;
  // Never 0: tmpfs reads size=0 as no limit (second review).
  if (!/^([1-9]\d{0,11}[kmg]?|([1-9]\d?|100)%)$/i.test(value))
    throw new Error(
      `${PRIVATE_TMP_SIZE_ENV} must be a size such as 2g, 512m or 25% (of RAM), got ${JSON.stringify(value)}`,
    );
  return value;
}

export interface TempRoot {
  path: string;
  /** `overlay`: the directory's files stay visible, writes go to a private layer; `empty`: a fresh tmpfs. */
  how: "overlay" | "empty";
  /** The directory's mode (`/tmp`'s 1777), given to the private layer's root. */
  mode: number;
}

/** `path`'s real path when it is a directory, else null. */
export function realDir(path: string): string | null {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** What the namespace's setup is asked to do, as the plan's real paths. */
export interface Seal {
  /**
   * Temp roots made private, each with the plan's directories inside it bound back (at most 6;
   * writable dirs among them come back writable: they are bound before the rest is made read-only).
   */
  privateTemps: { root: TempRoot; keep: string[] }[];
  /** Writable dirs in no private temp root: bound onto themselves, so the read-only pass leaves them be. */
  bindWritable: string[];
  /** Mount points made read-only (their files reachable by the run and writable before). */
  readOnly: string[];
}

/** What of a run's plan the seal must leave as it is (real paths). */
export interface SealInputs {
  /** The user's checkout (bound read-only; devflow's home and the run's checkout below it). */
  repo: string;
  /** devflow's home, covered. */
  hide: string;
  /** Dependency directories (bound read-only or copy-on-write). */
  dependencies: readonly string[];
  /** Directories outside the home the run may write (its scratch or temp dir). */
  writable: readonly string[];
  /** Whether /run and /var/run are covered by LOCKDOWN afterwards (ADR 0069). */
  runCovered: boolean;
}

/** Most directories one temp root can have bound back (the setup holds each on a descriptor, 3..8). */
export const MAX_KEPT_PER_TEMP = 6;

/**
 * The seal of one run: which temp roots are made private (and what of the plan is bound back into
 * each: the repository, dependencies and writable dirs inside it, outermost only), and which of
 * devflow's mounts are made read-only: all but `LEFT_AS_THEY_ARE`, those read-only already, and
 * those the run cannot reach anyway (under a temp root made private, the repository, devflow's
 * home, a dependency dir, /proc, a covered /run), and never one at a writable path. A temp root
 * with more than MAX_KEPT_PER_TEMP dirs to keep, or inside a directory the plan binds, is not made
 * private: it is then read-only like the rest.
 */
export function sealFor(inputs: SealInputs, mounts: readonly HostMount[], temps: readonly TempRoot[]): Seal {
  const planDirs = [inputs.repo, ...inputs.dependencies, ...inputs.writable];
  const privateTemps: Seal["privateTemps"] = [];
  for (const root of temps) {
    if (planDirs.some((dir) => within(root.path, dir))) continue;
    const inside = planDirs.filter((dir) => dir !== root.path && within(dir, root.path));
    const keep = inside.filter((dir) => !inside.some((other) => other !== dir && within(dir, other)));
    if (keep.length > MAX_KEPT_PER_TEMP) continue;
    privateTemps.push({ root, keep: [...new Set(keep)] });
  }
  const unreachable = [
    "/proc",
    inputs.repo,
    inputs.hide,
    ...inputs.dependencies,
    ...privateTemps.map((t) => t.root.path),
    ...(inputs.runCovered ? ["/run", "/var/run"] : []),
  ];
  const readOnly = mounts
    .filter((m) => !m.readOnly && !LEFT_AS_THEY_ARE.has(m.type))
    .map((m) => m.path)
    .filter((path) => !unreachable.some((dir) => within(path, dir)) && !inputs.writable.includes(path));
  const kept = privateTemps.flatMap((t) => t.keep);
  const bindWritable = inputs.writable.filter((dir) => !kept.some((k) => within(dir, k)));
  return { privateTemps, bindWritable, readOnly };
}
