import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { childPath, under } from "../util/byte-path.js";
import { INSTALL_ROOT } from "../util/paths.js";
import { extraWritableDirs, hostMounts, privateTmpSize, realDir, sealFor, tempRoots } from "./mount-seal.js";
import { opaqueDirs } from "./overlay-opaque.js";
import { confinementToolsPath, systemTool } from "./system-tool.js";

/**
 * What a confined run may see of the user's repository (ADR 0025, 0031): the repository read-only,
 * devflow's home hidden, only what the run needs inside the home bound back.
 */
export interface MountPlan {
  /** The user's checkout (its `.git` and linked `node_modules` included): read-only. */
  readOnly: string;
  /** devflow's home `<repo>/.devflow`: covered by an empty tmpfs (state, artifacts, other checkouts gone). */
  hide: string;
  /** The run's checkout inside `hide` (the coder's, or the task's verification checkout): bound back, writable; the run starts there. */
  expose: string;
  /**
   * Further directories inside `hide` bound back (a verification run's report directory,
   * writable, and its pinned bin directory, read-only: ADR 0031). They must exist, must not
   * nest in each other or in `expose`, and are the only other paths of the home the run sees.
   */
  alsoExpose?: readonly ExposedDir[];
  /**
   * The user's installed dependencies (`node_modules` and the like, by real path: a link may lead
   * out of the repository): bound read-only. With `copyOnWrite` (verification runs, ADR 0031) an
   * overlay with a throwaway tmpfs layer goes on top, so runners can write their caches there
   * (vitest bundles its config into `node_modules/.vite-temp`) while nothing reaches the user's
   * copy and nothing is left for the next run. Where overlayfs is unavailable it stays read-only.
   */
  dependencies?: readonly DependencyDir[];
  /**
   * An empty directory on disk inside `hide` (outside `expose`), for verification runs (ADR 0040):
   * the run's checkout becomes an overlay whose lower layer is the checkout and whose upper layer
   * is `<overlayUpper>/u`, so nothing the run writes reaches the checkout, and every file it
   * changed, even one it put back, stays in the upper layer for devflow to read after the run
   * (`checkoutOverlayChanges`). Hidden from the run with the rest of the home. Where overlayfs
   * refuses the mount the checkout is bound as before (no `<overlayUpper>/w/work` then).
   */
  overlayUpper?: string;
  /**
   * Directories outside `hide` the run may write besides its checkout (ADR 0075): a coder's scratch
   * dir (its prompt, git config and CLI home), a verification run's temp dir. Everything else the
   * run can reach is read-only or private to it (`sealFor`).
   */
  writable?: readonly string[];
  /**
   * Files under /run the run sees although /run is covered (ADR 0069), bound back read-only.
   * Default: `runFilesToKeep()`, the resolver's configuration where `/etc/resolv.conf` leads there.
   */
  runFiles?: readonly string[];
  /** Links under /run made again after the cover, as [link, target]. Default: `runLinksToKeep()`. */
  runLinks?: readonly (readonly [string, string])[];
}

export interface DependencyDir {
  path: string;
  copyOnWrite: boolean;
}

export interface ExposedDir {
  path: string;
  writable: boolean;
}

/** The part of a plan that is the same for every run of a task: what is read-only, what is hidden. */
export type RepoMounts = Pick<MountPlan, "readOnly" | "hide" | "dependencies">;

/** Whether the checkout overlay of a run with `overlayUpper` was mounted (overlayfs made its work dir). */
export const checkoutOverlayMounted = (overlayUpper: string): boolean =>
  existsSync(join(overlayUpper, "w", "work"));

/**
 * What a run behind the checkout overlay did to files that were in the checkout before it
 * (ADR 0040): every path of the upper layer that is not a directory (a copied-up file, a symlink,
 * a whiteout) and that exists in the lower layer, the checkout itself, which the run could not
 * change, and every file of the checkout below a directory the run removed and made again (an
 * opaque directory). A file the run changed and put back is still a copy-up; new (untracked)
 * files are not listed. Sorted, relative to the checkout, names walked as bytes and reported as
 * UTF-8 (U+FFFD where a name is not). Throws when the opaque markers cannot be
 * read, or when no probed namespace says which marker the overlay wrote (overlay-opaque.ts).
 */
export function checkoutOverlayChanges(overlayUpper: string, checkout: string): string[] {
  // The marker's namespace follows the mode the overlay was mounted in (ADR 0068); unknown: throw.
  const mode = mountNamespaceMode();
  if (mode === null)
    throw new Error("no mount namespace mode is known: the overlay's opaque markers cannot be read");
  const changed = new Set<string>();
  const upper = join(overlayUpper, "u");
  openDirs(upper);
  // Names are walked as bytes (session-25 review): one that is not UTF-8 decoded to U+FFFD named
  // no file of the checkout, and a tracked file the run rewrote passed for a new, untracked one.
  // Directories of the checkout the run wrote into; opaque ones were removed and made again.
  const dirsOfLower: Buffer[] = [];
  const walk = (rel: Buffer): void => {
    for (const entry of readdirSync(under(upper, rel), { withFileTypes: true, encoding: "buffer" })) {
      const path = childPath(rel, entry.name);
      if (entry.isDirectory()) {
        const lower = existsInLower(checkout, path);
        if (lower === "file") changed.add(path.toString("utf8")); // a file replaced by a directory
        if (lower === "dir") dirsOfLower.push(path);
        walk(path);
      } else if (existsInLower(checkout, path) !== null) changed.add(path.toString("utf8"));
    }
  };
  walk(Buffer.alloc(0));
  // Everything the checkout held below an opaque directory is hidden from the run: deleted.
  for (const dir of opaqueDirs(upper, dirsOfLower, mode === "user" ? "user" : "trusted"))
    for (const file of filesBelow(checkout, Buffer.from(dir, "latin1"))) changed.add(file.toString("utf8"));
  return [...changed].sort();
}

/**
 * Gives the owner rwx on `dir` and every directory below it. Inside a user namespace (ADR 0068)
 * the upper layer belongs to devflow's own, unprivileged uid: overlayfs leaves its work dir mode
 * 000 and a run may make a directory it cannot list (`mkdir -m 0`), which would otherwise stop
 * devflow from reading or removing the layer (as root no mode stops it). Best effort: what stays
 * unreadable still makes the reading throw (fail closed).
 */
function openDirs(dir: string | Buffer): void {
  try {
    if (!lstatSync(dir).isDirectory()) return;
    chmodSync(dir, 0o700);
    // By bytes: a name that is not UTF-8, decoded, named no directory and stayed mode 000, so the
    // layer could never be removed and every later run of that log failed (session-25 review).
    const path = typeof dir === "string" ? Buffer.from(dir) : dir;
    for (const entry of readdirSync(path, { withFileTypes: true, encoding: "buffer" }))
      if (entry.isDirectory()) openDirs(childPath(path, entry.name));
  } catch {
    // gone, or not ours: the read or removal that follows reports it
  }
}

/** Removes a checkout overlay's directory (upper and work layers), whatever modes the run or overlayfs left. */
export function removeOverlayUpper(overlayUpper: string): void {
  openDirs(overlayUpper);
  try {
    rmSync(overlayUpper, { recursive: true, force: true });
  } catch (error) {
    // A run can nest folders past PATH_MAX (mkdir and cd in a loop): node's removal goes by whole
    // paths and stops at ENAMETOOLONG, which left the layer for good and failed every later run of
    // that log path (session-25 review). GNU chmod and rm walk by descriptors, at any depth.
    if ((error as NodeJS.ErrnoException).code !== "ENAMETOOLONG") throw error;
    spawnSync("chmod", ["-R", "u+rwx", "--", overlayUpper], { stdio: "ignore" });
    spawnSync("rm", ["-rf", "--", overlayUpper], { stdio: "ignore" });
    if (existsSync(overlayUpper)) throw error;
  }
}

function filesBelow(root: string, rel: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (const entry of readdirSync(under(root, rel), { withFileTypes: true, encoding: "buffer" })) {
    const path = childPath(rel, entry.name);
    if (entry.isDirectory()) out.push(...filesBelow(root, path));
    else out.push(path);
  }
  return out;
}

function existsInLower(checkout: string, rel: Buffer): "dir" | "file" | null {
  try {
    return lstatSync(under(checkout, rel)).isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

/**
 * Runs in the new mount namespace (private propagation: nothing leaks back to the host), then
 * execs the command. Arguments: the PATH for its tools (`confinementToolsPath`), the read-only path, the hidden path, the checkout overlay's
 * directory (empty: none), extra overlay options (`,userxattr` inside a user namespace, ADR 0068:
 * overlayfs mounted there keeps its markers in `user.overlay.*`; empty as root), the private temp
 * layers' size cap (`privateTmpSize`, ADR 0075), then `rw|ro <dir>` pairs
 * (the first is the run's checkout), `--`, `ro|cow <dir>` pairs (dependencies), `--`, writable
 * dirs outside the home, `--`, private temp roots as `overlay|empty <mode> <dir> <n> <n dirs kept>`
 * (ADR 0075), `--`, the command.
 * Each exposed directory is held open on a descriptor while the tmpfs covers the home and bound
 * back from it afterwards (read-only where asked); `cd` re-resolves the working directory through
 * the new mounts.
 */
const SCRIPT = [
  "set -e",
  // The tools below run with capabilities: the system's, never the run's PATH (session-25 review).
  // The run's PATH is kept aside for the command; LOCKDOWN puts it back after its own tools.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion (set or not)
  'if [ -n "${PATH+x}" ]; then DEVFLOW_RUN_PATH=$PATH; export DEVFLOW_RUN_PATH; fi',
  // $1: confinementToolsPath (real directories first: NixOS's links under /run go with the cover).
  "PATH=$1; export PATH; shift",
  "ro=$1; hide=$2; ov=$3; xo=$4; sz=$5; shift 5",
  // The checkout (the first exposed dir, $2 now) behind an overlay with an upper layer on disk in
  // the hidden home: the bind below then carries the overlay (ADR 0040).
  'if [ -n "$ov" ]; then mkdir -p "$ov/u" "$ov/w"; mount -t overlay devflow-checkout -o "lowerdir=$2,upperdir=$ov/u,workdir=$ov/w$xo" "$2" 2>/dev/null || true; fi',
  "n=0; m=",
  "for a do",
  '  [ "$a" = -- ] && break',
  '  if [ -z "$m" ]; then m=$a; continue; fi',
  // Each exposed dir held open (fds 3..8) rather than parked under a temp dir: /tmp is shared, and
  // a same-uid process outside (another task's coder) could swap a parked mount point for a link
  // to a tree of its own between the two binds (session-25 review). Bound back from the fd below.
  '  n=$((n+1)); [ $n -le 6 ] || { echo "devflow-mounts: more than 6 exposed dirs" >&2; exit 1; }',
  // eval sees `exec 3<"$a"` and expands $a itself: a path is never re-parsed as shell text.
  '  eval "exec $((n+2))<\\"\\$a\\""; m=',
  "done",
  // `--bind -o ro`: libmount binds, then remounts the new mount read-only, in one process.
  'mount --bind -o ro "$ro" "$ro"',
  // Capped at the private temp size ($5, ADR 0075): the run cannot write here (read-only below) but
  // for the private /tmp's layer, held in memory as a tmpfs /tmp would be.
  'mount -t tmpfs -o "mode=0755,size=$sz" devflow-hidden "$hide"',
  "n=0; m=; first=",
  "for a do",
  '  [ "$a" = -- ] && break',
  '  if [ -z "$m" ]; then m=$a; continue; fi',
  // -c: the fd's magic link as it is (canonicalized, its path would resolve through the cover).
  '  n=$((n+1)); mkdir -p "$a"',
  '  if [ "$m" = ro ]; then mount -c --bind -o ro "/proc/self/fd/$((n+2))" "$a"; else mount -c --bind "/proc/self/fd/$((n+2))" "$a"; fi',
  '  eval "exec $((n+2))<&-"',
  '  if [ -z "$first" ]; then first=$a; fi',
  "  m=",
  "done",
  'while [ "$1" != -- ]; do shift; done',
  "shift",
  // Dependencies: read-only (they may lie outside the repository); copy-on-write layers live on
  // tmpfs mounts inside the hidden home, so they vanish with the namespace.
  "n=0",
  'while [ "$1" != -- ]; do',
  "  m=$1; d=$2; shift 2; n=$((n+1))",
  '  mount --bind -o ro "$d" "$d"',
  '  if [ "$m" = cow ]; then',
  '    c="$hide/.devflow-cow-$n"; mkdir "$c"; mount -t tmpfs -o "mode=0700,size=$sz" devflow-cow "$c"; mkdir "$c/u" "$c/w"',
  '    mount -t overlay devflow-deps -o "lowerdir=$d,upperdir=$c/u,workdir=$c/w$xo" "$d" 2>/dev/null || true',
  "  fi",
  "done",
  "shift",
  // Writable dirs outside the home (ADR 0075): each bound onto itself (from a descriptor: the path
  // is in the shared /tmp) so the read-only pass in LOCKDOWN, which remounts their file system, leaves them be.
  // Recursively: a granted dir that holds the repository must carry the repository's read-only
  // bind and the home's tmpfs along (second review: a plain bind covered them).
  'while [ "$1" != -- ]; do exec 9<"$1"; mount -c --rbind /proc/self/fd/9 "$1"; exec 9<&-; shift; done',
  "shift",
  // Private temp roots (ADR 0075): the plan's dirs inside one held open (fds 3..8) while it is
  // covered, then bound back recursively (the repository's bind carries the home and the checkout).
  // `overlay`: the root's files stay visible (a coder's script in /tmp), writes go to a tmpfs layer
  // in the home; where overlayfs refuses, the root is bound read-only instead. `empty`: a fresh tmpfs.
  "n=0",
  'while [ "$1" != -- ]; do',
  "  how=$1; mode=$2; t=$3; k=$4; shift 4; n=$((n+1)); i=0",
  '  while [ $i -lt "$k" ]; do i=$((i+1)); eval "exec $((i+2))<\\"\\$1\\"; k$i=\\$1"; shift; done',
  '  if [ "$how" = overlay ]; then',
  // The layer lives in the home's tmpfs (read-only to the run once SCRIPT remounts it; the overlay
  // keeps its own writable clone of that mount): one process fewer than a tmpfs of its own.
  '    c="$hide/.devflow-tmp-$n"; mkdir -m "$mode" "$c" "$c/u" "$c/w"',
  // Inside a user namespace the layer cannot copy up a folder of another uid (EOVERFLOW): X11's
  // and ICE's socket folders, root's in /tmp, are made in the layer so Xvfb can still start there.
  '    if [ -n "$xo" ] && [ "$t" = /tmp ]; then mkdir -m 1777 "$c/u/.X11-unix" "$c/u/.ICE-unix"; fi',
  '    mount -t overlay devflow-temp -o "lowerdir=$t,upperdir=$c/u,workdir=$c/w$xo" "$t" 2>/dev/null || mount --bind -o ro "$t" "$t"',
  '  else mount -t tmpfs -o "mode=$mode,size=$sz" devflow-temp "$t"; fi',
  '  i=0; while [ $i -lt "$k" ]; do i=$((i+1)); eval "p=\\$k$i"; [ -d "$p" ] || mkdir -p "$p"; mount -c --rbind "/proc/self/fd/$((i+2))" "$p"; eval "exec $((i+2))<&-"; done',
  "done",
  "shift",
  // A bind remount (the mount's own flag, locked for a nested namespace): a superblock remount
  // re-sends the tmpfs's uid= option, which inside a user namespace that does not map it (devflow
  // run as root in a rootless container, or in `unshare -r`) is EINVAL, and the probe failed there.
  'mount -o remount,bind,ro "$hide"',
  'cd "$first"',
  'exec "$@"',
].join("\n");

/**
 * What SCRIPT execs before the command, for every plan (ADR 0038): devflow's own directories
 * (`devflowReadOnlyPaths`, the args up to `--`) bound read-only, recursively so the mounts SCRIPT
 * made inside them (the run's checkout) keep their own flags; the seal's read-only pass and the
 * machine's /proc entries (ADR 0075, two more `--` sections); `cd` re-resolves the working
 * directory through them; then the command runs without any capability (`dropCapabilities`).
 */
const LOCKDOWN = [
  "set -e",
  // `--rbind -o ro`: the top mount read-only, the mounts below (the run's checkout) keep their own flags.
  'while [ "$1" != -- ]; do mount --rbind -o ro "$1" "$1"; shift; done; shift',
  // The seal's read-only pass (ADR 0075): every other mount the run could write, read-only. One that
  // cannot be remounted must be one the run cannot reach either (a directory this uid cannot enter).
  // A mount gone since devflow read the table (a container engine's, an automount's) is skipped:
  // nothing of it is left to reach (review: a run failed while a host mount came and went).
  'while [ "$1" != -- ]; do mount -o remount,bind,ro "$1" 2>/dev/null || ! mountpoint -q "$1" 2>/dev/null || ! (cd "$1" 2>/dev/null) || { echo "devflow-seal: $1 could not be made read-only" >&2; exit 1; }; shift; done; shift',
  // The machine's own parts of the run's fresh /proc (ADR 0075), bound read-only: `/proc/sys`, which
  // uid 0 may write without any capability (`kernel.core_pattern` names a program the kernel runs
  // as real root on the next crash), the sysrq trigger, IRQ and bus settings. Root mode only: an
  // ordinary user's run cannot write them anyway.
  'while [ "$1" != -- ]; do if [ -e "$1" ]; then mount --bind -o ro "$1" "$1"; fi; shift; done; shift',
  // Device nodes (root mode, second review of ADR 0075): a read-only /dev still lets uid 0 write a
  // block device (the disk under the user's repository, a loop device) or attach a loop device.
  // The nodes a program needs are bound onto themselves, then /dev itself gets nodev.
  'd=; while [ "$1" != -- ]; do if [ -e "$1" ]; then [ -n "$d" ] || mountpoint -q /dev || mount --bind /dev /dev; d=1; mount --bind "$1" "$1"; fi; shift; done; shift',
  'if [ -n "$d" ]; then mount -o remount,bind,ro,nodev,nosuid /dev; fi',
  // Host services (ADR 0069): /run covered by an empty tmpfs (`hide-run`), the files listed after it
  // (the resolver's configuration) bound back read-only; a real /var/run too.
  // The files kept are held open (fds 3..8) across the cover, never parked in the shared /tmp.
  "how=$1; shift; n=0",
  'if [ "$how" = hide-run ] && [ -d /run ]; then',
  '  for k do [ "$k" = -- ] && break; n=$((n+1)); [ $n -le 6 ] || exit 1; eval "exec $((n+2))<\\"\\$k\\""; done',
  "  mount -t tmpfs -o mode=0755,size=1m devflow-run /run",
  "  n=0",
  '  for k do [ "$k" = -- ] && break; n=$((n+1)); mkdir -p "$(dirname "$k")"; : > "$k"; mount -c --bind -o ro "/proc/self/fd/$((n+2))" "$k"; eval "exec $((n+2))<&-"; done',
  // Then the links kept (`runLinksToKeep`, pairs after the second --): made again as they were.
  "  s=0; l=",
  "  for k do",
  '    if [ "$k" = -- ]; then s=$((s+1)); if [ $s -eq 2 ]; then break; fi; continue; fi',
  "    [ $s -eq 1 ] || continue",
  '    if [ -z "$l" ]; then l=$k; else mkdir -p "$(dirname "$l")"; ln -s "$k" "$l"; l=; fi',
  "  done",
  "  if [ -d /var/run ] && [ ! -L /var/run ]; then mount -t tmpfs -o mode=0755,size=1m devflow-run /var/run; fi",
  "fi",
  'while [ "$1" != -- ]; do shift; done; shift',
  'while [ "$1" != -- ]; do shift; done; shift',
  // Defensive: a cwd inside a path made read-only here would otherwise stay on the old mount.
  'cd "$PWD"',
  // The run's PATH back for the command; setpriv ($1) is an absolute path, found before the run.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion (set or not)
  'if [ -n "${DEVFLOW_RUN_PATH+x}" ]; then PATH=$DEVFLOW_RUN_PATH; unset DEVFLOW_RUN_PATH; else unset PATH; fi',
  'exec "$@"',
].join("\n");

/**
 * The program a mount namespace's setup runs last, which runs the command (setpriv): once it has
 * started, the namespace is the run's (the open trace judges namespace calls from there, ADR 0072).
 */
export const namespaceHandOverProgram = (): string => systemTool("setpriv") ?? "setpriv-not-found";

/**
 * The namespace is made as root: a command that kept CAP_SYS_ADMIN could `mount -o remount,rw` the
 * user's checkout, `umount` the private /proc (devflow's environ behind it) or the tmpfs hiding
 * `.devflow`, or `nsenter` out (review rows 6, 15). uid 0 stays (files it creates stay devflow's,
 * owner permissions unchanged); every capability goes, for good: an empty bounding set (no exec
 * regains one, root or setuid), no inheritable or ambient ones, no_new_privs. ADR 0038.
 */
const dropCapabilities = (): string[] => [
  namespaceHandOverProgram(),
  "--bounding-set=-all",
  "--inh-caps=-all",
  "--ambient-caps=-all",
  "--no-new-privs",
  "--",
];

/**
 * devflow's installed package (with dist/ when compiled: the reporter, preloads and verifiers later
 * runs load), its node_modules and
 * HOME (the ~/.gitconfig devflow's git reads): what LOCKDOWN makes read-only (review row 13).
 * Existing directories only, and never one that holds the temp dir (`HOME=/` or `/tmp`: the
 * coder's scratch dir, with its git config and CLI homes, must stay writable; then HOME stays
 * writable, ADR 0038).
 */
export function devflowReadOnlyPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const temp = realDir(tmpdir());
  const out: string[] = [];
  for (const candidate of [INSTALL_ROOT, join(INSTALL_ROOT, "node_modules"), env.HOME]) {
    const path = candidate ? realDir(candidate) : null;
    if (path === null || temp === null || out.includes(path)) continue;
    const toTemp = relative(path, temp);
    if (toTemp !== ".." && !toTemp.startsWith("../")) continue; // holds the temp dir (or is it)
    out.push(path);
  }
  return out;
}

/**
 * The parts of a fresh /proc that are the machine's, not the run's, and writable by uid 0 without a
 * capability (ADR 0075): bound read-only in root mode. The set Docker makes read-only.
 */
const MACHINE_PROC_ENTRIES = [
  "/proc/sys",
  "/proc/sysrq-trigger",
  "/proc/irq",
  "/proc/bus",
  "/proc/fs",
  "/proc/acpi",
  "/proc/scsi",
];

/**
 * The device nodes a root-mode run keeps (ADR 0075): every other node of /dev is unusable to it
 * (nodev), block devices and loop control among them. Pseudo-terminals come from /dev/pts.
 */
const DEVICE_NODES_KEPT = [
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/random",
  "/dev/urandom",
  "/dev/tty",
  "/dev/ptmx",
];

/** What SCRIPT and LOCKDOWN run by name (the rest are the shell's own). */
const SCRIPT_TOOLS = ["mount", "mkdir", "dirname", "ln", "mountpoint"] as const;

/**
 * The links under /run a confined run still needs once LOCKDOWN covers /run, as [link, target]:
 * NixOS's `/run/current-system` (the system's programs: `/run/current-system/sw/bin` is on every
 * user's PATH there), made again in the new /run pointing where it pointed. Its target is a store
 * path outside /run, read-only; nothing in it is a host service. Only a link to an absolute path
 * outside /run.
 */
export function runLinksToKeep(links: readonly string[] = ["/run/current-system"]): [string, string][] {
  const out: [string, string][] = [];
  for (const link of links) {
    try {
      if (!lstatSync(link).isSymbolicLink()) continue;
      const target = readlinkSync(link);
      if (target.startsWith("/") && !target.startsWith("/run/")) out.push([link, target]);
    } catch {
      // not there
    }
  }
  return out;
}

/** `1`: a confined run sees the host's /run (its service sockets) as it is (ADR 0069). */
export const EXPOSE_RUN_ENV = "DEVFLOW_EXPOSE_RUN";

/**
 * The files under /run a confined run still needs once LOCKDOWN covers /run (ADR 0069): the
 * resolver's configuration, where `/etc/resolv.conf` leads there (systemd-resolved, resolvconf,
 * NetworkManager), so host names still resolve. Regular files only, by their real path.
 */
export function runFilesToKeep(resolvConf = "/etc/resolv.conf"): string[] {
  try {
    const target = realpathSync(resolvConf);
    return target.startsWith("/run/") && statSync(target).isFile() ? [target] : [];
  } catch {
    return [];
  }
}

/** Its own mount and PID namespace, a fresh /proc (no path through another process's root or cwd). */
const NAMESPACES = [
  "--mount",
  "--propagation",
  "private",
  "--pid",
  "--fork",
  "--kill-child",
  "--mount-proc",
  // Its own System V IPC and POSIX message queues (review of ADR 0075: shared memory a run made
  // outlived it in the machine's namespace).
  "--ipc",
];

/**
 * How the namespace is made (ADR 0068). `root`: devflow runs as root, plain `unshare`. `user`: an
 * ordinary user, inside a new user namespace that maps only that user (`--map-current-user`: the
 * coder keeps its uid; several coders refuse some modes as root). Its capabilities there would be
 * lost at the exec of SCRIPT (a non-zero uid), so `--keep-caps` carries them over as ambient ones
 * for SCRIPT's mounts; dropCapabilities then empties the bounding, inheritable and ambient sets
 * before the command. The mounts SCRIPT makes are owned by this user namespace: from a nested one
 * (`unshare -Urm`, which needs no capability) the kernel refuses to unmount them singly or drop
 * their read-only flag (MNT_LOCKED), which the probe checks.
 */
export type MountNamespaceMode = "root" | "user";

/** By the system's path (`systemTool`): the spawn would otherwise search the run's PATH for it. */
const unshareArgv = (how: MountNamespaceMode): string[] => {
  const unshare = systemTool("unshare") ?? "unshare-not-found";
  return how === "root"
    ? [unshare, ...NAMESPACES]
    : [unshare, "--user", "--map-current-user", "--keep-caps", ...NAMESPACES];
};

let works: boolean | undefined;
let mode: MountNamespaceMode | null = null;

/** The mode the probe proved (null: none works, or not probed yet). */
export function mountNamespaceMode(): MountNamespaceMode | null {
  return mountNamespaceWorks() ? mode : null;
}

/**
 * The argv prefix that runs a command under `plan`, or null where mount namespaces are not
 * available (not Linux, not privileged: see ADR 0025; `DEVFLOW_NO_MOUNT_NAMESPACE=1` or
 * `DEVFLOW_NO_PID_NAMESPACE=1` turns it off).
 */
export function mountNamespacePrefix(plan: MountPlan): string[] | null {
  const inUse = mountNamespaceInUse();
  return inUse === null ? null : mountArgv(plan, inUse);
}

/**
 * The mode runs are confined in (null: none): the proved mode, unless `DEVFLOW_NO_PID_NAMESPACE=1`
 * turns the PID namespace off (tests of the fallback), which the plan brings along. The one answer
 * to "do runs get the mount plan" (the run prefix, the verification overlay, `devflow doctor`).
 */
export function mountNamespaceInUse(): MountNamespaceMode | null {
  if (process.env.DEVFLOW_NO_PID_NAMESPACE === "1") return null;
  return mountNamespaceWorks() ? mode : null;
}

/**
 * Probed once: the whole plan on a scratch layout, checked from inside, in the one mode this
 * process can use (root: `root`; anyone else: `user`, ADR 0068). Where it fails, runs get no mount
 * namespace (detection only, ADR 0021).
 */
export function mountNamespaceWorks(): boolean {
  if (works !== undefined) return works;
  works = false;
  mode = null;
  if (process.platform !== "linux" || process.env.DEVFLOW_NO_MOUNT_NAMESPACE === "1") return works;
  const candidate: MountNamespaceMode = process.getuid?.() === 0 ? "root" : "user";
  if (probeMode(candidate)) {
    works = true;
    mode = candidate;
  }
  return works;
}

/**
 * From inside: the home's other files hidden, the run's checkout writable, the repository not, no
 * capability in any set; and a nested user namespace (root there, full capabilities over its own
 * mounts) can neither unmount the tmpfs nor remount the repository writable: it must see no secret
 * and write nothing (checked inside and, for the write, again from outside).
 */
export function probeMode(candidate: MountNamespaceMode): boolean {
  const root = mkdtempSync(join(tmpdir(), "devflow-mount-probe-"));
  // Outside the plan, in the shared temp dir: what the run writes there must not reach the host (ADR 0075).
  const outside = mkdtempSync(join(tmpdir(), "devflow-mount-probe-outside-"));
  try {
    const hide = join(root, ".devflow");
    const expose = join(hide, "worktrees", "t");
    mkdirSync(expose, { recursive: true });
    writeFileSync(join(hide, "secret"), "s");
    const nested =
      'umount "$1/.devflow" 2>/dev/null; umount -l "$1/.devflow" 2>/dev/null; ' +
      'mount -o remount,bind,rw "$1" 2>/dev/null; mount -o remount,rw "$1" 2>/dev/null; ' +
      // A plain (non-recursive) bind of the repository would show what the tmpfs covers: refused
      // for a tree with locked mounts below.
      'mkdir -p b && mount --bind "$1" b 2>/dev/null; test -e b/.devflow/secret && exit 0; ' +
      'test -e "$1/.devflow/secret" && exit 0; touch "$1/y" 2>/dev/null && exit 0; exit 1';
    // Also: no capability left (setpriv missing or refused: the exec fails and so does the probe).
    const check =
      "test ! -e ../../secret && touch ./ok && ! touch ../../../x 2>/dev/null && " +
      "grep -Eq '^CapBnd:[[:space:]]*0+$' /proc/self/status && grep -Eq '^CapEff:[[:space:]]*0+$' /proc/self/status && " +
      "grep -Eq '^CapPrm:[[:space:]]*0+$' /proc/self/status && grep -Eq '^CapAmb:[[:space:]]*0+$' /proc/self/status && " +
      `! unshare -Urm /bin/sh -c '${nested}' devflow-nested "$0" 2>/dev/null && ` +
      // Opening the machine's settings or a block device's control to write must fail (opened, not
      // written: nothing changes).
      "! ( : >> /proc/sys/kernel/core_pattern ) 2>/dev/null && " +
      "{ [ ! -e /dev/loop-control ] || ! ( : >> /dev/loop-control ) 2>/dev/null; } && " +
      // A subshell: a failed redirection of `:` (a special builtin) would end the script with 2.
      '( : > "$1/planted" ) 2>/dev/null; test ! -e ../../secret && exit 7; exit 1';
    const [file, ...args] = mountArgv({ readOnly: root, hide, expose }, candidate, true) as [
      string,
      ...string[],
    ];
    const probe = spawnSync(file, [...args, "/bin/sh", "-c", check, root, outside], {
      stdio: "ignore",
      timeout: 5000,
    });
    return (
      probe.status === 7 &&
      existsSync(join(expose, "ok")) &&
      !existsSync(join(outside, "planted")) &&
      !existsSync(join(root, "x")) &&
      !existsSync(join(root, "y"))
    );
  } catch {
    return false;
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
}

const overlayWorksIn = new Map<string, boolean>();

/**
 * Whether a verification run's checkout overlay (ADR 0040) mounts in this repository's home: the
 * run plan of `mounts` on a scratch checkout and upper layer made inside `mounts.hide` (the file
 * system the real checkout and upper layer live on; overlayfs refuses some as upper or lower
 * layer), with a command that writes a file. True only when the overlay was mounted, the write
 * landed in the upper layer and the scratch checkout kept its bytes. Probed once per home
 * (issue 11): before, every process stat-walked the whole checkout around its first verification
 * run until one overlay had been seen to work, a second walk of 20,000 files on a large repository.
 * A real run whose overlay then does not mount still fails closed (run-command.ts).
 */
export function checkoutOverlayWorks(mounts: RepoMounts): boolean {
  const known = overlayWorksIn.get(mounts.hide);
  if (known !== undefined) return known;
  let works = false;
  if (mountNamespaceWorks()) {
    let scratch: string | null = null;
    try {
      scratch = mkdtempSync(join(mounts.hide, ".overlay-probe-"));
      const checkout = join(scratch, "checkout");
      const upper = join(scratch, "upper");
      mkdirSync(checkout);
      mkdirSync(upper);
      writeFileSync(join(checkout, "tracked"), "before\n");
      mkdirSync(join(checkout, "d"));
      writeFileSync(join(checkout, "d", "f"), "f\n");
      const [file, ...args] = mountArgv(
        { ...mounts, expose: checkout, overlayUpper: upper },
        mode ?? "root",
      ) as [string, ...string[]];
      const probe = spawnSync(
        file,
        [...args, "/bin/sh", "-c", "echo after > ./tracked && rm -rf d && mkdir d && exit 7"],
        {
          stdio: "ignore",
          timeout: 5000,
        },
      );
      works =
        probe.status === 7 &&
        checkoutOverlayMounted(upper) &&
        // `d` made again must be an empty opaque directory: its marker (in the xattr namespace of
        // the mode, ADR 0068) is then the only record that d/f went; an overlay that could not
        // write it (no `userxattr` in a user namespace) leaves whiteouts in `d` instead.
        readdirSync(join(upper, "u", "d")).length === 0 &&
        checkoutOverlayChanges(upper, checkout).join() === "d/f,tracked" &&
        readFileSync(join(checkout, "tracked"), "utf8") === "before\n";
    } catch {
      works = false;
    } finally {
      if (scratch) removeOverlayUpper(scratch);
    }
  }
  overlayWorksIn.set(mounts.hide, works);
  return works;
}

function mountArgv(plan: MountPlan, how: MountNamespaceMode, sealProbe = false): string[] {
  const exposed = [{ path: plan.expose, writable: true }, ...(plan.alsoExpose ?? [])];
  const pairs = exposed.flatMap((d) => [d.writable ? "rw" : "ro", d.path]);
  const deps = (plan.dependencies ?? []).flatMap((d) => [d.copyOnWrite ? "cow" : "ro", d.path]);
  // By real path: the temp roots and the mount table are (a TMPDIR behind a link still holds them).
  const realOrSame = (path: string): string => realDir(path) ?? path;
  const seal = sealFor(
    {
      repo: realOrSame(plan.readOnly),
      hide: realOrSame(plan.hide),
      dependencies: (plan.dependencies ?? []).map((d) => realOrSame(d.path)),
      // The plan's own, and the user's (DEVFLOW_WRITABLE_DIRS), except for the probe, which must
      // see a write into the shared temp dir stay private.
      writable: [...(plan.writable ?? []).map(realOrSame), ...(sealProbe ? [] : extraWritableDirs())],
      runCovered: process.env[EXPOSE_RUN_ENV] !== "1",
    },
    hostMounts(),
    tempRoots(),
  );
  return [
    ...unshareArgv(how),
    "/bin/sh",
    "-c",
    SCRIPT,
    "devflow-mounts",
    confinementToolsPath(SCRIPT_TOOLS),
    plan.readOnly,
    plan.hide,
    plan.overlayUpper ?? "",
    how === "user" ? ",userxattr" : "",
    privateTmpSize(),
    ...pairs,
    "--",
    ...deps,
    "--",
    ...seal.bindWritable,
    "--",
    ...seal.privateTemps.flatMap(({ root, keep }) => [
      root.how,
      root.mode.toString(8),
      root.path,
      String(keep.length),
      ...keep,
    ]),
    "--",
    ...["/bin/sh", "-c", LOCKDOWN, "devflow-lockdown", ...devflowReadOnlyPaths(), "--"],
    ...seal.readOnly,
    "--",
    ...(how === "root" ? MACHINE_PROC_ENTRIES : []),
    "--",
    ...(how === "root" ? DEVICE_NODES_KEPT : []),
    "--",
    // `keep-run|hide-run <files> -- <link target pairs> --` (LOCKDOWN reads both sections).
    ...(process.env[EXPOSE_RUN_ENV] === "1"
      ? ["keep-run", "--"]
      : [
          "hide-run",
          ...(plan.runFiles ?? runFilesToKeep()),
          "--",
          ...(plan.runLinks ?? runLinksToKeep()).flat(),
        ]),
    ...["--", ...dropCapabilities()],
  ];
}

/** For tests: forget the probe result. */
export function resetMountProbe(): void {
  works = undefined;
  mode = null;
  overlayWorksIn.clear();
}
