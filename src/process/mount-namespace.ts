import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PACKAGE_ROOT } from "../util/paths.js";

/**
 * What a confined run may see of the user's repository (ADR 0025): the repository read-only,
 * devflow's home hidden, only the run's own checkout (inside the home) writable.
 */
export interface MountPlan {
  /** The user's checkout (its `.git` and linked `node_modules` included): read-only. */
  readOnly: string;
  /** devflow's home `<repo>/.devflow`: covered by an empty tmpfs (state, artifacts, other checkouts gone). */
  hide: string;
  /** The coder's checkout inside `hide`: bound back, writable; the run starts there. */
  expose: string;
}

/**
 * Runs in the new mount namespace (private propagation: nothing leaks back to the host), then
 * execs the command. The checkout is parked on a temporary mount point before the tmpfs covers
 * it, and bound back afterwards; `cd` re-resolves the working directory through the new mounts.
 */
const SCRIPT = [
  "set -e",
  "ro=$1; hide=$2; expose=$3; shift 3",
  "stash=$(mktemp -d)",
  'mount --bind "$expose" "$stash"',
  'mount --bind "$ro" "$ro"',
  'mount -o remount,bind,ro "$ro"',
  'mount -t tmpfs -o mode=0755,size=1m devflow-hidden "$hide"',
  'mkdir -p "$expose"',
  'mount --bind "$stash" "$expose"',
  'umount "$stash"',
  'rmdir "$stash"',
  'mount -o remount,ro "$hide"',
  'cd "$expose"',
  'exec "$@"',
].join("\n");

/**
 * What SCRIPT execs before the command, for every plan (ADR 0038): devflow's own directories
 * (`devflowReadOnlyPaths`, the args up to `--`) bound read-only, recursively so the mounts SCRIPT
 * made inside them (the run's checkout) keep their own flags; `cd` re-resolves the working
 * directory through them; then the command runs without any capability (`DROP_CAPABILITIES`).
 */
const LOCKDOWN = [
  "set -e",
  'while [ "$1" != -- ]; do mount --rbind "$1" "$1"; mount -o remount,bind,ro "$1"; shift; done; shift',
  // Defensive: a cwd inside a path made read-only here would otherwise stay on the old mount.
  'cd "$PWD"',
  'exec "$@"',
].join("\n");

/**
 * The namespace is made as root: a command that kept CAP_SYS_ADMIN could `mount -o remount,rw` the
 * user's checkout, `umount` the private /proc (devflow's environ behind it) or the tmpfs hiding
 * `.devflow`, or `nsenter` out (review rows 6, 15). uid 0 stays (files it creates stay devflow's,
 * owner permissions unchanged); every capability goes, for good: an empty bounding set (no exec
 * regains one, root or setuid), no inheritable or ambient ones, no_new_privs. ADR 0038.
 */
const DROP_CAPABILITIES = [
  "setpriv",
  "--bounding-set=-all",
  "--inh-caps=-all",
  "--ambient-caps=-all",
  "--no-new-privs",
  "--",
];

/**
 * devflow's package (the reporter, preloads and verifiers later runs load), its node_modules and
 * HOME (the ~/.gitconfig devflow's git reads): what LOCKDOWN makes read-only (review row 13).
 * Existing directories only, and never one that holds the temp dir (`HOME=/` or `/tmp`: the
 * coder's scratch dir, with its git config and CLI homes, must stay writable; then HOME stays
 * writable, ADR 0038).
 */
export function devflowReadOnlyPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const temp = real(tmpdir());
  const out: string[] = [];
  for (const candidate of [PACKAGE_ROOT, join(PACKAGE_ROOT, "node_modules"), env.HOME]) {
    const path = candidate ? real(candidate) : null;
    if (path === null || temp === null || out.includes(path)) continue;
    const toTemp = relative(path, temp);
    if (toTemp !== ".." && !toTemp.startsWith("../")) continue; // holds the temp dir (or is it)
    out.push(path);
  }
  return out;
}

function real(path: string): string | null {
  try {
    const resolved = realpathSync(path);
    return statSync(resolved).isDirectory() ? resolved : null;
  } catch {
    return null;
  }
}

/** Its own mount and PID namespace, a fresh /proc (no path through another process's root or cwd). */
const UNSHARE = [
  "unshare",
  "--mount",
  "--propagation",
  "private",
  "--pid",
  "--fork",
  "--kill-child",
  "--mount-proc",
];

let works: boolean | undefined;

/**
 * The argv prefix that runs a command under `plan`, or null where mount namespaces are not
 * available (not Linux, not privileged: see ADR 0025; `DEVFLOW_NO_MOUNT_NAMESPACE=1` or
 * `DEVFLOW_NO_PID_NAMESPACE=1` turns it off).
 */
export function mountNamespacePrefix(plan: MountPlan): string[] | null {
  // It brings a PID namespace along: turning that off (tests of the fallback) turns this off too.
  if (process.env.DEVFLOW_NO_PID_NAMESPACE === "1") return null;
  return mountNamespaceWorks() ? mountArgv(plan) : null;
}

/** Probed once: the whole plan on a scratch layout, checked from inside. */
export function mountNamespaceWorks(): boolean {
  if (works !== undefined) return works;
  works = false;
  if (process.platform !== "linux" || process.env.DEVFLOW_NO_MOUNT_NAMESPACE === "1") return works;
  const root = mkdtempSync(join(tmpdir(), "devflow-mount-probe-"));
  try {
    const hide = join(root, ".devflow");
    const expose = join(hide, "worktrees", "t");
    mkdirSync(expose, { recursive: true });
    writeFileSync(join(hide, "secret"), "s");
    // Also: no capability left (setpriv missing or refused: the exec fails and so does the probe).
    const check =
      "test ! -e ../../secret && touch ./ok && ! touch ../../../x 2>/dev/null && " +
      "grep -Eq '^CapBnd:[[:space:]]*0+$' /proc/self/status && grep -Eq '^CapEff:[[:space:]]*0+$' /proc/self/status && exit 7; exit 1";
    const [file, ...args] = mountArgv({ readOnly: root, hide, expose }) as [string, ...string[]];
    const probe = spawnSync(file, [...args, "/bin/sh", "-c", check], { stdio: "ignore", timeout: 5000 });
    works = probe.status === 7;
  } catch {
    works = false;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return works;
}

function mountArgv(plan: MountPlan): string[] {
  return [
    ...UNSHARE,
    ...["/bin/sh", "-c", SCRIPT, "devflow-mounts", plan.readOnly, plan.hide, plan.expose],
    ...["/bin/sh", "-c", LOCKDOWN, "devflow-lockdown", ...devflowReadOnlyPaths(), "--", ...DROP_CAPABILITIES],
  ];
}

/** For tests: forget the probe result. */
export function resetMountProbe(): void {
  works = undefined;
}
