import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "./mount-namespace.js";
import { runProcess } from "./run-process.js";

describe.runIf(mountNamespaceWorks())("a confined run with a mount plan (ADR 0025)", () => {
  it("sees the repository read-only and devflow's home empty but for its own checkout, which it can write", async () => {
    const repo = mkdtempSync(join(tmpdir(), "devflow-mounts-"));
    const home = join(repo, ".devflow");
    const checkout = join(home, "worktrees", "t");
    mkdirSync(checkout, { recursive: true });
    writeFileSync(join(home, "state.sqlite"), "state");
    writeFileSync(join(repo, "file.txt"), "user");
    const script = [
      "test -e ../../state.sqlite && echo saw-state",
      "echo evil > ../../state.sqlite 2>/dev/null && echo wrote-state",
      "echo evil > ../../../file.txt 2>/dev/null && echo wrote-repo",
      "echo fix > fix.txt && echo wrote-checkout",
      "pwd",
    ].join("; ");
    const run = await runProcess({
      command: script,
      shell: true,
      cwd: checkout,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 10_000,
      confine: true,
      mounts: { readOnly: repo, hide: home, expose: checkout },
    });
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
    const repo = mkdtempSync(join(tmpdir(), "devflow-mounts-also-"));
    const home = join(repo, ".devflow");
    const checkout = join(home, "verify", "t");
    const out = join(home, "iterate", "t", "seam.log.out");
    const bin = join(home, "iterate", "t", "seam.log.bin");
    for (const dir of [checkout, out, bin]) mkdirSync(dir, { recursive: true });
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
    const run = await runProcess({
      command: script,
      shell: true,
      cwd: checkout,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 10_000,
      confine: true,
      mounts: {
        readOnly: repo,
        hide: home,
        expose: checkout,
        alsoExpose: [
          { path: out, writable: true },
          { path: bin, writable: false },
        ],
      },
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
    const repo = mkdtempSync(join(tmpdir(), "devflow-mounts-deps-"));
    const outside = mkdtempSync(join(tmpdir(), "devflow-mounts-deps-outside-"));
    const home = join(repo, ".devflow");
    const checkout = join(home, "verify", "t");
    mkdirSync(checkout, { recursive: true });
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
    const run = await runProcess({
      command: script,
      shell: true,
      cwd: checkout,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 10_000,
      confine: true,
      mounts: {
        readOnly: repo,
        hide: home,
        expose: checkout,
        dependencies: [
          { path: inRepo, copyOnWrite: true },
          { path: outside, copyOnWrite: false },
        ],
      },
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
