import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withoutUserWritableDirs } from "../../test/support/sealed-runs.js";
import { PACKAGE_ROOT } from "../util/paths.js";
import { devflowReadOnlyPaths, type MountPlan, mountNamespaceWorks } from "./mount-namespace.js";
import { PRIVATE_TMP_SIZE_ENV, WRITABLE_DIRS_ENV } from "./mount-seal.js";
import { runProcess } from "./run-process.js";

interface PlanRepo {
  repo: string;
  home: string;
  checkout: string;
}

/** A repo with devflow's home (a state file in it), a checkout under the home, the user's file beside. */
function planRepo(
  inside = mkdtempSync(join(tmpdir(), "devflow-mounts-")),
  checkoutUnder = "worktrees",
): PlanRepo {
  const repo = join(inside, "repo");
  const home = join(repo, ".devflow");
  const checkout = join(home, checkoutUnder, "t");
  mkdirSync(checkout, { recursive: true });
  writeFileSync(join(home, "state.sqlite"), "state");
  writeFileSync(join(repo, "file.txt"), "user");
  return { repo, home, checkout };
}

/** A shell line run in the checkout, confined: the repo read-only, the home hidden but the checkout, plus `more`. */
function runUnderPlan({ repo, home, checkout }: PlanRepo, script: string, more: Partial<MountPlan> = {}) {
  return runProcess({
    command: script,
    shell: true,
    cwd: checkout,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: 20_000,
    confine: true,
    mounts: { readOnly: repo, hide: home, expose: checkout, ...more },
  });
}

/** planRepo, then the line run there under the plan. */
async function runInPlan(script: string, inside?: string) {
  const paths = planRepo(inside);
  return { ...paths, run: await runUnderPlan(paths, script) };
}

describe.runIf(mountNamespaceWorks())("a confined run with a mount plan (ADR 0025)", () => {
  it("sees the repository read-only and devflow's home empty but for its own checkout, which it can write", async () => {
    const script = [
      "test -e ../../state.sqlite && echo saw-state",
      "echo evil > ../../state.sqlite 2>/dev/null && echo wrote-state",
      "echo evil > ../../../file.txt 2>/dev/null && echo wrote-repo",
      "echo fix > fix.txt && echo wrote-checkout",
      "pwd",
    ].join("; ");
    const { repo, home, checkout, run } = await runInPlan(script);
    expect(run.output).not.toMatch(/saw-state|wrote-state|wrote-repo/);
    expect(run.output).toContain("wrote-checkout");
    expect(readFileSync(join(home, "state.sqlite"), "utf8")).toBe("state");
    expect(readFileSync(join(repo, "file.txt"), "utf8")).toBe("user");
    expect(readFileSync(join(checkout, "fix.txt"), "utf8")).toBe("fix\n");
    // Nothing of the namespace is left on the host: no temporary mount point in the home.
    expect(existsSync(join(home, "worktrees", "t", "fix.txt"))).toBe(true);
  });
});

describe.runIf(mountNamespaceWorks())("a mount plan with further exposed directories (ADR 0031)", () => {
  it("binds each back as asked (writable or read-only) and hides the rest of the home", async () => {
    const plan = planRepo(undefined, "verify");
    const { home, checkout } = plan;
    const out = join(home, "iterate", "t", "seam.log.out");
    const bin = join(home, "iterate", "t", "seam.log.bin");
    for (const dir of [out, bin]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(bin, "node"), "pinned");
    writeFileSync(join(home, "iterate", "t", "task_artifact.json"), "{}");
    const script = [
      `echo report > ${out}/report && echo wrote-report`,
      `cat ${bin}/node && echo`,
      `echo evil > ${bin}/node 2>/dev/null && echo wrote-bin`,
      `test -e ${home}/iterate/t/task_artifact.json && echo saw-artifact`,
      "echo ok > here.txt && echo wrote-checkout",
      "pwd",
    ].join("; ");
    const run = await runUnderPlan(plan, script, {
      alsoExpose: [
        { path: out, writable: true },
        { path: bin, writable: false },
      ],
    });
    expect(run.output).toContain("wrote-report");
    expect(run.output).toContain("pinned");
    expect(run.output).toContain("wrote-checkout");
    expect(run.output).toContain(checkout);
    expect(run.output).not.toMatch(/wrote-bin|saw-artifact/);
    expect(readFileSync(join(out, "report"), "utf8")).toBe("report\n");
    expect(readFileSync(join(bin, "node"), "utf8")).toBe("pinned");
  });
});

describe.runIf(mountNamespaceWorks())("a mount plan's dependencies (ADR 0031)", () => {
  it("are read-only wherever they live; copy-on-write ones take writes that never reach the host", async () => {
    const plan = planRepo(undefined, "verify");
    const { repo, home } = plan;
    const outside = mkdtempSync(join(tmpdir(), "devflow-mounts-deps-outside-"));
    const inRepo = join(repo, "node_modules");
    mkdirSync(join(inRepo, "pkg"), { recursive: true });
    writeFileSync(join(inRepo, "pkg", "index.js"), "1");
    writeFileSync(join(outside, "index.js"), "1");
    const script = [
      `echo 2 > ${inRepo}/pkg/index.js && echo wrote-cow`,
      `mkdir -p ${inRepo}/.vite-temp && echo cache > ${inRepo}/.vite-temp/c && echo wrote-cache`,
      `cat ${inRepo}/pkg/index.js`,
      `echo 2 > ${outside}/index.js 2>/dev/null && echo wrote-outside`,
    ].join("; ");
    const run = await runUnderPlan(plan, script, {
      dependencies: [
        { path: inRepo, copyOnWrite: true },
        { path: outside, copyOnWrite: false },
      ],
    });
    expect(run.output).toContain("wrote-cow");
    expect(run.output).toContain("wrote-cache");
    expect(run.output).not.toContain("wrote-outside");
    expect(readFileSync(join(inRepo, "pkg", "index.js"), "utf8")).toBe("1");
    expect(existsSync(join(inRepo, ".vite-temp"))).toBe(false);
    expect(readFileSync(join(outside, "index.js"), "utf8")).toBe("1");
    expect(existsSync(join(home, ".devflow-cow-1"))).toBe(false);
  });
});

/**
 * Regression: coder-as-root-remounts-the-users-checkout-writable and
 * coder-unmounts-its-proc-and-reads-devflows-environment (review rows 6, 15). Cause: the namespace
 * is made as root and the command kept CAP_SYS_ADMIN in it, so `mount -o remount,bind,rw` undid
 * the read-only bind and `umount -l /proc` uncovered the host's /proc. Fix (ADR 0038): the command
 * is exec'd through `setpriv` with an empty bounding set, no inheritable/ambient caps, no_new_privs.
 */
describe.runIf(mountNamespaceWorks())("a confined run with a mount plan has no capability (ADR 0038)", () => {
  it("cannot mount, unmount, nsenter, write a read-only bind or read devflow's environ, and still works in its checkout", async () => {
    const hostPid = String(process.pid);
    const attempt = (name: string, line: string) =>
      `if ${line} >/dev/null 2>&1; then echo "${name}=done"; else echo "${name}=refused"; fi`;
    const { repo, checkout, run } = await runInPlan(
      [
        "REPO=$(cd ../../.. && pwd)",
        attempt("remount", 'mount -o remount,bind,rw "$REPO"'),
        attempt("writeRepo", 'touch "$REPO/x"'),
        attempt("mountTmpfs", "mount -t tmpfs none ../.."),
        attempt("umountHide", 'umount -l "$REPO/.devflow"'),
        attempt("umountProc", "umount -l /proc"),
        attempt("nsenter", "nsenter -t 1 -m -p true"),
        attempt("hostEnviron", `cat /proc/${hostPid}/environ`),
        attempt("unshare", "unshare --mount true"),
        // A normal coder: a commit in its checkout, npm-style writes, /tmp.
        attempt(
          "gitCommit",
          "git init -q && git -c user.name=c -c user.email=c@x commit -q --allow-empty -m c",
        ),
        attempt(
          "npmWrite",
          "mkdir -p node_modules/.cache/pkg && echo 1 > node_modules/.cache/pkg/x && echo {} > package-lock.json",
        ),
        attempt("tmpWrite", 'f=$(mktemp) && echo t > "$f" && rm "$f"'),
        "grep -E '^Cap(Eff|Bnd|Prm)' /proc/self/status",
      ].join("\n"),
    );
    expect(run.output).toContain("remount=refused");
    expect(run.output).toContain("writeRepo=refused");
    expect(run.output).toContain("mountTmpfs=refused");
    expect(run.output).toContain("umountHide=refused");
    expect(run.output).toContain("umountProc=refused");
    expect(run.output).toContain("nsenter=refused");
    expect(run.output).toContain("hostEnviron=refused");
    expect(run.output).toContain("unshare=refused");
    expect(run.output).toContain("gitCommit=done");
    expect(run.output).toContain("npmWrite=done");
    expect(run.output).toContain("tmpWrite=done");
    expect(run.output).toMatch(/CapEff:\s+0+\n/);
    expect(run.output).toMatch(/CapBnd:\s+0+\n/);
    expect(existsSync(join(checkout, "node_modules", ".cache", "pkg", "x"))).toBe(true);
    expect(existsSync(join(repo, "x"))).toBe(false);
  });

  /**
   * Regression: coder-finds-devflows-own-package-writable (review row 13). Cause: the plan made
   * only the user's checkout read-only; devflow's package (the node:test reporter and preloads
   * every later verification run loads), its node_modules and HOME (~/.gitconfig, read by
   * devflow's own git) stayed writable. Fix (ADR 0038): bound read-only inside the namespace.
   */
  it("finds devflow's package, its node_modules and HOME read-only", async () => {
    const saved = process.env.HOME;
    const fakeHome = mkdtempSync(join(tmpdir(), "devflow-home-"));
    process.env.HOME = fakeHome;
    try {
      const reporter = join(PACKAGE_ROOT, "package.json");
      const modules = join(PACKAGE_ROOT, "node_modules", ".package-lock.json");
      const { run } = await runInPlan(
        [
          `if touch ${JSON.stringify(reporter)} 2>/dev/null; then echo package=writable; fi`,
          `if touch ${JSON.stringify(modules)} 2>/dev/null; then echo modules=writable; fi`,
          `if echo x >> ${JSON.stringify(join(fakeHome, ".gitconfig"))} 2>/dev/null; then echo home=writable; fi`,
          `test -r ${JSON.stringify(reporter)} && echo package=readable`,
          "echo fix > fix.txt && echo checkout=writable",
          // The working directory is re-resolved through the read-only HOME that holds the repo.
          "if echo x > ../../../../escape.txt 2>/dev/null; then echo cwd-path=writable; fi",
        ].join("\n"),
        fakeHome,
      );
      expect(run.output).not.toMatch(/package=writable|modules=writable|home=writable|cwd-path=writable/);
      expect(run.output).toContain("package=readable");
      expect(run.output).toContain("checkout=writable");
      expect(existsSync(join(fakeHome, ".gitconfig"))).toBe(false);
      expect(existsSync(join(fakeHome, "escape.txt"))).toBe(false);
    } finally {
      process.env.HOME = saved;
    }
  });
});

describe.runIf(mountNamespaceWorks())("the rest of the machine sealed for a confined run (ADR 0075)", () => {
  withoutUserWritableDirs();
  it("writes nowhere outside its checkout and writable dirs: / and /proc/sys read-only, /tmp and /dev/shm private, /tmp's files still visible", async () => {
    const plan = planRepo();
    const top = join(plan.repo, "..");
    const writable = mkdtempSync(join(tmpdir(), "devflow-seal-writable-"));
    const outside = mkdtempSync(join(tmpdir(), "devflow-seal-outside-"));
    writeFileSync(join(outside, "stub.sh"), "echo stub-seen\n");
    const atRoot = `/devflow-seal-${process.pid}-${Date.now()}`;
    let shmKey: string | undefined;
    const script = [
      `sh ${outside}/stub.sh`,
      `echo a > ${top}/vitest.config.mjs && echo wrote-above-repo`,
      `echo a > ${outside}/planted && echo wrote-outside-in-tmp`,
      `cat ${outside}/planted`,
      `echo a > /dev/shm/devflow-seal-${process.pid} && echo wrote-shm`,
      `echo a > ${atRoot} 2>/dev/null && echo wrote-root`,
      `echo a > ${writable}/kept && echo wrote-writable`,
      "echo a > fix.txt && echo wrote-checkout",
      // The machine's settings: the same value written back, so a failed seal changes nothing.
      "v=$(cat /proc/sys/vm/swappiness); echo $v > /proc/sys/vm/swappiness && echo wrote-sysctl",
      "v=$(cat /proc/irq/default_smp_affinity); echo $v > /proc/irq/default_smp_affinity && echo wrote-irq",
      // Device nodes: loop control unusable (opened, nothing written), the common ones still work.
      "( : >> /dev/loop-control ) 2>/dev/null && echo opened-loop-control",
      "echo x > /dev/null && echo urandom-$(head -c 4 /dev/urandom | wc -c)",
      // System V shared memory in the run's own IPC namespace: its id named for the check outside.
      "id=$(ipcmk -M 4096 | sed -n 's/^Shared memory id: //p'); ipcs -m | awk -v id=\"$id\" '$2 == id { print \"shm-key=\" $1 }'",
    ].join("; ");
    try {
      const run = await runUnderPlan(plan, script, { writable: [writable] });
      expect(run.output).toContain("stub-seen");
      expect(run.output).not.toContain("wrote-root");
      expect(run.output).not.toContain("wrote-sysctl");
      expect(run.output).not.toContain("wrote-irq");
      expect(run.output).not.toContain("opened-loop-control");
      expect(run.output).toContain("urandom-4");
      shmKey = /shm-key=(0x[0-9a-f]+)/.exec(run.output)?.[1];
      expect(shmKey, run.output).toBeDefined();
      expect(spawnSync("ipcs", ["-m"], { encoding: "utf8" }).stdout).not.toContain(shmKey);
      // Inside the run /tmp and /dev/shm took the writes (private copies)...
      expect(run.output).toMatch(/wrote-above-repo[\s\S]*wrote-outside-in-tmp[\s\S]*wrote-shm/);
      expect(run.output).toContain("wrote-writable");
      expect(run.output).toContain("wrote-checkout");
      // ...and none of them reached the host; the writable dir and the checkout did.
      expect(existsSync(join(top, "vitest.config.mjs"))).toBe(false);
      expect(existsSync(join(outside, "planted"))).toBe(false);
      expect(existsSync(`/dev/shm/devflow-seal-${process.pid}`)).toBe(false);
      expect(existsSync(atRoot)).toBe(false);
      expect(readFileSync(join(writable, "kept"), "utf8")).toBe("a\n");
      expect(readFileSync(join(plan.checkout, "fix.txt"), "utf8")).toBe("a\n");
    } finally {
      if (shmKey) spawnSync("ipcrm", ["-M", shmKey]);
      rmSync(atRoot, { force: true });
      rmSync(`/dev/shm/devflow-seal-${process.pid}`, { force: true });
    }
  });
});

describe.runIf(mountNamespaceWorks())("the user's writable dirs (DEVFLOW_WRITABLE_DIRS, ADR 0075)", () => {
  withoutUserWritableDirs();
  it("are the only other places a run's writes reach the host", async () => {
    const cache = mkdtempSync(join(tmpdir(), "devflow-seal-cache-"));
    const other = mkdtempSync(join(tmpdir(), "devflow-seal-other-"));
    process.env[WRITABLE_DIRS_ENV] = cache;
    const run = await runUnderPlan(planRepo(), `echo c > ${cache}/kept; echo o > ${other}/lost`);
    expect(run.exitCode, run.output).toBe(0);
    expect(readFileSync(join(cache, "kept"), "utf8")).toBe("c\n");
    expect(existsSync(join(other, "lost"))).toBe(false);
  });
});

describe.runIf(mountNamespaceWorks())("a run's private /tmp is capped (ADR 0075)", () => {
  withoutUserWritableDirs();
  it("at DEVFLOW_PRIVATE_TMP_SIZE: a run writing more gets ENOSPC, nothing reaches the host", async () => {
    const before = process.env[PRIVATE_TMP_SIZE_ENV];
    process.env[PRIVATE_TMP_SIZE_ENV] = "2m";
    try {
      const run = await runUnderPlan(
        planRepo(),
        `{ head -c 4000000 /dev/zero > /tmp/devflow-big-${process.pid}; } 2>&1 || echo no-space`,
      );
      expect(run.output).toContain("No space left on device");
      expect(run.output).toContain("no-space");
      expect(existsSync(`/tmp/devflow-big-${process.pid}`)).toBe(false);
    } finally {
      if (before === undefined) delete process.env[PRIVATE_TMP_SIZE_ENV];
      else process.env[PRIVATE_TMP_SIZE_ENV] = before;
    }
  });
});

describe("devflowReadOnlyPaths", () => {
  it("names the package, its node_modules and HOME, never a directory that holds the temp dir", () => {
    const home = mkdtempSync(join(tmpdir(), "devflow-home-"));
    const paths = devflowReadOnlyPaths({ HOME: home });
    expect(paths).toContain(home);
    expect(paths.some((p) => p.endsWith("node_modules"))).toBe(true);
    expect(devflowReadOnlyPaths({ HOME: "/" })).not.toContain("/");
    expect(devflowReadOnlyPaths({ HOME: tmpdir() })).not.toContain(tmpdir());
  });
});

describe("where mount namespaces are expected", () => {
  // As root on Linux the namespace must work: a probe that fails there would silently turn the
  // confinement (and the tests above) off.
  it.runIf(
    process.platform === "linux" &&
      process.getuid?.() === 0 &&
      process.env.DEVFLOW_NO_MOUNT_NAMESPACE !== "1",
  )("is available when devflow runs as root on Linux", () => {
    expect(mountNamespaceWorks()).toBe(true);
  });
});
