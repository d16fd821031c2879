/**
 * Confinement for devflow run by an ordinary user (ADR 0068): the mount plan of ADR 0025/0031/0040
 * made inside a new user namespace (`unshare --user --map-current-user --keep-caps`). Before, a
 * non-root devflow got no mount namespace at all (ADR 0021: "state.sqlite and node_modules stay
 * writable"). Real processes: devflow's BUILT modules run as an unused uid through `setpriv`
 * (tests run as root), with a layout owned by that uid.
 *
 * Needs root (to drop to the uid) and a fresh dist/:
 *
 *     npm run build && npx vitest run test/adversarial/mount-namespace-as-ordinary-user.test.ts
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { asUser as asUid, confinedRunAsUser, userRepo as userRepoOf } from "../support/mount-plan-as-user.js";
import { canDropToAnotherUid, unusedUid } from "../support/scan-as-user.js";

const uid = unusedUid(5);
const made: string[] = [];

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const userRepo = () => userRepoOf(uid, made);
const asUser = (body: string, env: Record<string, string> = {}) => asUid(uid, body, env);
const confinedRun = (r: ReturnType<typeof userRepo>, script: string, extra: object = {}, env = {}) =>
  confinedRunAsUser(uid, r, script, extra, env);

describe.runIf(
  canDropToAnotherUid() && existsSync(new URL("../../dist/src/process/mount-namespace.js", import.meta.url)),
)("devflow as an ordinary user: the mount plan inside a user namespace (ADR 0068)", () => {
  it("the probe proves the plan as that user: mode user, the checkout overlay mounts", () => {
    const r = userRepo();
    const out = asUser(
      `return { works: mn.mountNamespaceWorks(), mode: mn.mountNamespaceMode(),
          overlay: mn.checkoutOverlayWorks({ readOnly: ${JSON.stringify(r.repo)}, hide: ${JSON.stringify(r.home)} }) };`,
    );
    expect(out).toEqual({ works: true, mode: "user", overlay: true });
  });

  it("a confined run keeps the user's uid, cannot read the home's other files or write the checkout or node_modules, and cannot undo the mounts from a nested user namespace", () => {
    const r = userRepo();
    const nested = [
      `umount ${r.home} 2>/dev/null && echo nested-umounted`,
      `umount -l ${r.home} 2>/dev/null && echo nested-lazy-umounted`,
      `mount -o remount,bind,rw ${r.repo} 2>/dev/null && echo nested-remounted`,
      `mount -o remount,bind,rw ${r.deps} 2>/dev/null && echo nested-remounted-deps`,
      `test -e ${r.home}/state.sqlite && echo nested-saw-state`,
      `mkdir -p bound && mount --bind ${r.repo} bound 2>/dev/null; test -e bound/.devflow/state.sqlite && echo nested-saw-state-by-bind`,
      `echo evil > ${r.repo}/file.txt 2>/dev/null && echo nested-wrote-repo`,
      `echo evil > ${r.deps}/dep.js 2>/dev/null && echo nested-wrote-deps`,
      "echo nested-ran",
    ].join("; ");
    const script = [
      'echo "uid=$(id -u)"',
      "test -e ../../state.sqlite && echo saw-state",
      "echo evil > ../../../file.txt 2>/dev/null && echo wrote-repo",
      `echo evil > ${r.deps}/dep.js 2>/dev/null && echo wrote-deps`,
      `umount ${r.home} 2>/dev/null && echo umounted`,
      `mount -o remount,bind,rw ${r.repo} 2>/dev/null && echo remounted`,
      `unshare -Urm /bin/sh -c '${nested}'`,
      "echo fix > fix.txt && echo wrote-checkout",
    ].join("; ");
    const run = confinedRun(r, script, { dependencies: [{ path: r.deps, copyOnWrite: false }] });
    expect(run.mode).toBe("user");
    expect(run.output).toContain(`uid=${uid}`);
    expect(run.output).toContain("nested-ran"); // the nested namespace was made: its attempts were real
    expect(run.output).toContain("wrote-checkout");
    expect(run.output).not.toMatch(/saw-state|wrote-repo|wrote-deps|umounted|remounted/);
    expect(readFileSync(join(r.repo, "file.txt"), "utf8")).toBe("user");
    expect(readFileSync(join(r.deps, "dep.js"), "utf8")).toBe("dep");
    expect(readFileSync(join(r.home, "state.sqlite"), "utf8")).toBe("state");
  });

  it("a verification run's overlay upper records a changed file and a directory made again (user.overlay.opaque); copy-on-write deps take writes that stay inside", () => {
    const r = userRepo();
    const script = [
      "echo after > tracked.txt",
      "rm -rf src && mkdir src && echo new > src/c.ts",
      "mkdir -m 0 locked",
      `echo cache > ${r.deps}/dep.js && echo wrote-cow`,
    ].join("; ");
    const run = confinedRun(r, script, {
      overlayUpper: r.upper,
      dependencies: [{ path: r.deps, copyOnWrite: true }],
    });
    expect(run.output).toContain("wrote-cow");
    expect(readFileSync(join(r.checkout, "tracked.txt"), "utf8")).toBe("before");
    expect(readFileSync(join(r.deps, "dep.js"), "utf8")).toBe("dep");
    const changes = asUser(
      `mn.mountNamespaceWorks(); return { mounted: mn.checkoutOverlayMounted(${JSON.stringify(r.upper)}),
          changes: mn.checkoutOverlayChanges(${JSON.stringify(r.upper)}, ${JSON.stringify(r.checkout)}) };`,
    );
    expect(changes).toEqual({ mounted: true, changes: ["src/a.ts", "src/b.ts", "tracked.txt"] });
    // The deletions of src/a.ts and src/b.ts are recorded by the opaque marker alone (no whiteouts).
    expect(readdirSync(join(r.upper, "u", "src"))).toEqual(["c.ts"]);
    // As that user devflow removes the layer, though overlayfs left its work dir mode 000 and the run made `locked` so.
    asUser(`mn.removeOverlayUpper(${JSON.stringify(r.upper)}); return null;`);
    expect(existsSync(r.upper)).toBe(false);
  });

  it("with DEVFLOW_NO_MOUNT_NAMESPACE=1 the old path runs: no mount namespace, the home stays visible (detection only)", () => {
    const r = userRepo();
    const run = confinedRun(
      r,
      "test -e ../../state.sqlite && echo saw-state",
      {},
      { DEVFLOW_NO_MOUNT_NAMESPACE: "1" },
    );
    expect(run.mode).toBeNull();
    expect(run.output).toContain("saw-state");
  });
});
