/**
 * Session-25 review of ADR 0068 (the mount plan as an ordinary user): the confined command runs as
 * the SAME uid as devflow, so the classic same-uid attacks on devflow's own process were tried
 * from inside a run, as an unused uid, through devflow's BUILT run path: ptrace (PTRACE_ATTACH and
 * PTRACE_SEIZE, no Yama on this kernel), `/proc/<devflow>/mem` opened for writing, its `environ`,
 * its `root`/`cwd` links (a way around the tmpfs over `.devflow`), a signal, a pidfd. And the mount
 * escapes from a nested user namespace beyond the probe's (ADR 0068 item 3): `umount -l /proc` to
 * reach the host's /proc under the run's own, `mount --move` and `umount -l` of the tmpfs over
 * `.devflow`, a recursive bind of `/` (keeps the covering tmpfs), `pivot_root`, a fresh procfs.
 *
 * Held, for two independent reasons:
 * - The PID namespace: devflow's pid does not exist in the run's namespace (ESRCH / ENOENT), and
 *   /proc is the namespace's own (`--mount-proc`, locked over the host's).
 * - The user namespace: even where devflow's /proc entry IS visible (the PID-namespace-only
 *   fallback, `DEVFLOW_NO_MOUNT_NAMESPACE=1`, which keeps the host's /proc), a process in a child
 *   user namespace may not ptrace, read the memory, environment, root or cwd of a process in the
 *   parent namespace although the uid is the same (commoncap's ptrace check needs the same user
 *   namespace or CAP_SYS_PTRACE over the target's): EACCES; pid-based calls (ptrace, kill,
 *   pidfd_open) still answer ESRCH because the pid is outside the run's PID namespace.
 *
 * Real processes: devflow's built modules as an unused uid (setpriv), /usr/bin/python3 for the
 * syscalls (`env -i`: root's python3 is a pyenv shim that uid cannot run).
 *
 *     npm run build && npx vitest run test/adversarial/review/devflow-out-of-reach-of-a-same-uid-run-attack25.test.ts
 */
import { chownSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { asUser, type UserRepo, userRepo } from "../../support/mount-plan-as-user.js";
import { canDropToAnotherUid, unusedUid } from "../../support/scan-as-user.js";

const uid = unusedUid(7) + 1; // range 7 is this session's; +1 keeps off the overlay-markers file's uid
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Python run inside the confined command: each same-uid attack on pid argv[1], one line per try. */
const SAME_UID_ATTACKS = `import ctypes, errno, os, sys
pid = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
def err(e): return errno.errorcode.get(e, str(e))
print("visible", os.path.exists("/proc/%d" % pid))
for name, req in (("attach", 16), ("seize", 0x4206)):
    r = libc.ptrace(req, pid, 0, 0)
    print("ptrace-" + name, "ok" if r == 0 else err(ctypes.get_errno()))
for f, flags in (("environ", os.O_RDONLY), ("mem", os.O_RDWR), ("maps", os.O_RDONLY)):
    try:
        fd = os.open("/proc/%d/%s" % (pid, f), flags); os.close(fd); print("open-" + f, "ok")
    except OSError as e:
        print("open-" + f, err(e.errno))
for f in ("root", "cwd"):
    try:
        os.listdir("/proc/%d/%s/" % (pid, f)); print("list-" + f, "ok")
    except OSError as e:
        print("list-" + f, err(e.errno))
try:
    os.kill(pid, 0); print("kill", "ok")
except OSError as e:
    print("kill", err(e.errno))
try:
    os.close(os.pidfd_open(pid)); print("pidfd", "ok")
except OSError as e:
    print("pidfd", err(e.errno))
`;

/** The attacks above against devflow's own pid, from a run of devflow (as the uid) on `r`'s plan. */
function attackDevflow(
  r: UserRepo,
  env: Record<string, string> = {},
): { output: string; mode: string | null } {
  const py = join(dirname(r.repo), "attack.py");
  writeFileSync(py, SAME_UID_ATTACKS);
  chownSync(py, uid, uid);
  const mounts = { readOnly: r.repo, hide: r.home, expose: r.checkout };
  return asUser(
    uid,
    `const run = await rp.runProcess({ command: ${JSON.stringify(`env -i /usr/bin/python3 ${py} "$DEVFLOW_PID"`)},
       shell: true, cwd: ${JSON.stringify(r.checkout)}, env: { PATH: process.env.PATH, DEVFLOW_PID: String(process.pid) },
       timeoutMs: 20000, confine: true, mounts: ${JSON.stringify(mounts)} });
     return { output: run.output, mode: mn.mountNamespaceInUse() };`,
    env,
  ) as { output: string; mode: string | null };
}

const lines = (output: string): Record<string, string> =>
  Object.fromEntries(
    output
      .split("\n")
      .map((l) => l.trim().split(" "))
      .filter((w) => w.length === 2)
      .map(([k, v]) => [k as string, v as string]),
  );

describe.runIf(
  canDropToAnotherUid() &&
    existsSync(new URL("../../../dist/src/process/mount-namespace.js", import.meta.url)),
)("a run as devflow's own uid attacks devflow's process (ADR 0068, session-25 review)", () => {
  it("with the mount plan: devflow's pid does not exist for the run (ptrace, mem, environ, root, cwd, kill, pidfd)", () => {
    const r = userRepo(uid, made);
    const { output, mode } = attackDevflow(r);
    expect(mode).toBe("user");
    expect(lines(output)).toEqual({
      visible: "False",
      "ptrace-attach": "ESRCH",
      "ptrace-seize": "ESRCH",
      "open-environ": "ENOENT",
      "open-mem": "ENOENT",
      "open-maps": "ENOENT",
      "list-root": "ENOENT",
      "list-cwd": "ENOENT",
      kill: "ESRCH",
      pidfd: "ESRCH",
    });
  });

  it("PID namespace only (DEVFLOW_NO_MOUNT_NAMESPACE=1, the host's /proc): devflow's entry is visible, yet the user-namespace boundary refuses its memory, environment, root and cwd", () => {
    const r = userRepo(uid, made);
    const { output, mode } = attackDevflow(r, { DEVFLOW_NO_MOUNT_NAMESPACE: "1" });
    expect(mode).toBeNull();
    expect(lines(output)).toEqual({
      visible: "True",
      "ptrace-attach": "ESRCH",
      "ptrace-seize": "ESRCH",
      "open-environ": "EACCES",
      "open-mem": "EACCES",
      "open-maps": "EACCES",
      "list-root": "EACCES",
      "list-cwd": "EACCES",
      kill: "ESRCH",
      pidfd: "ESRCH",
    });
  });

  it("from a nested user namespace the run reaches neither the host's /proc nor what the tmpfs covers (umount -l /proc, mount --move, rbind of /, pivot_root, a fresh procfs)", () => {
    const r = userRepo(uid, made);
    const state = join(r.home, "state.sqlite");
    const nested = [
      // The host's /proc lies under the run's own: a lazy unmount would uncover it.
      "umount -l /proc 2>/dev/null && echo umounted-proc",
      'test -e "/proc/$DEVFLOW_PID" && echo saw-devflow-in-proc',
      `mkdir -p m && mount --move ${r.home} m 2>/dev/null && echo moved-hide`,
      `umount -l ${r.home} 2>/dev/null && echo lazy-umounted-hide`,
      `test -e ${state} && echo saw-state`,
      // A recursive bind copies the tmpfs along; a plain one is refused (locked children).
      `mkdir -p all && mount --rbind / all 2>/dev/null && echo rbind-made && test -e all${state} && echo saw-state-by-rbind`,
      `mkdir -p one && mount --bind / one 2>/dev/null && echo bound-root && test -e one${state} && echo saw-state-by-bind`,
      // pivot_root onto a recursive copy of / (allowed), then a lazy unmount of the old root stacked on it (`pivot_root . .`): locked.
      // Allowed, and harmless: the whole old tree goes; the copy keeps its (still locked) covers.
      "mkdir -p nr && mount --rbind / nr 2>/dev/null && cd nr && pivot_root . . 2>/dev/null && echo pivoted && umount -l . 2>/dev/null && echo dropped-old-root; cd /",
      "umount -l /proc 2>/dev/null && echo umounted-proc-after-pivot",
      `umount -l ${r.home} 2>/dev/null && echo umounted-hide-after-pivot`,
      `test -e ${state} && echo saw-state-after-pivot`,
      'test -e "/proc/$DEVFLOW_PID" && echo saw-devflow-after-pivot',
      "mkdir -p np && mount -t proc proc np 2>/dev/null && echo mounted-proc",
      'test -e "np/$DEVFLOW_PID" && echo saw-devflow-in-new-proc',
      "echo nested-ran",
    ].join("; ");
    const script = [
      `unshare -Urm /bin/sh -c '${nested}'`,
      // A nested PID namespace with its own /proc sees only itself.
      `unshare -Urmpf --mount-proc /bin/sh -c 'test -e "/proc/$DEVFLOW_PID" && echo saw-devflow-in-nested-pid; echo nested-pid-ran'`,
      // Inherited descriptors: none leads into devflow's home but for the run's own checkout.
      `for f in /proc/self/fd/*; do t=$(readlink "$f"); case "$t" in ${r.home}/*) case "$t" in ${r.checkout}*) ;; *) echo "fd-into-home $t";; esac;; esac; done`,
    ].join("; ");
    const mounts = { readOnly: r.repo, hide: r.home, expose: r.checkout };
    const run = asUser(
      uid,
      `const run = await rp.runProcess({ command: ${JSON.stringify(script)}, shell: true, cwd: ${JSON.stringify(r.checkout)},
         env: { PATH: process.env.PATH, DEVFLOW_PID: String(process.pid) }, timeoutMs: 20000, confine: true,
         mounts: ${JSON.stringify(mounts)} });
       return { output: run.output, mode: mn.mountNamespaceInUse() };`,
    ) as { output: string; mode: string | null };
    expect(run.mode).toBe("user");
    expect(run.output).toContain("nested-ran");
    expect(run.output).toContain("nested-pid-ran");
    // The moves that the kernel allows did run (and showed nothing, below).
    expect(run.output).toContain("rbind-made");
    expect(run.output).toContain("pivoted");
    expect(run.output).toContain("dropped-old-root");
    for (const breach of [
      "umounted-proc",
      "umounted-hide",
      "saw-devflow",
      "moved-hide",
      "lazy-umounted-hide",
      "saw-state",
      "bound-root",
      "mounted-proc",
      "fd-into-home",
    ])
      expect(run.output).not.toContain(breach);
  });
});
