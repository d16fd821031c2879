/**
 * Regression: vitest with a config file could not start inside a verification mount namespace.
 *
 * Cause: vite bundles `vitest.config.*` into `<nearest node_modules>/.vite-temp/` and aborts on
 * anything but EACCES there; with the user's `node_modules` bound read-only (ADR 0031) that was
 * EROFS, so every seam and regression run of such a repo would have been an error: a correct fix
 * rejected. Fix: verification runs get the user's dependencies behind a throwaway copy-on-write
 * layer (overlayfs on a per-run tmpfs, `MountPlan.dependencies[].copyOnWrite`): the runner's caches
 * work and nothing reaches the user's copy.
 */

import { existsSync, mkdtempSync } from "node:fs";
import { cp, mkdir, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../../src/process/mount-namespace.js";
import { runVerifierCommand } from "../../src/verify/run-command.js";
import { ensureRunnerInstalled } from "./runner-fixture.js";

describe.runIf(mountNamespaceWorks())("vitest with a config file in a verification mount namespace", () => {
  it("runs its tests (the config bundle goes to a throwaway layer) and leaves the user's node_modules untouched", async () => {
    const modules = await ensureRunnerInstalled("vitest");
    const repo = mkdtempSync(join(tmpdir(), "devflow-vitest-config-ns-"));
    const checkout = join(repo, ".devflow", "verify", "t");
    await mkdir(checkout, { recursive: true });
    for (const dir of [repo, checkout]) {
      await cp(join(import.meta.dirname, "..", "fixtures", "runners", "vitest"), dir, { recursive: true });
      await writeFile(
        join(dir, "vitest.config.ts"),
        'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { include: ["test/**/*.test.js"] } });\n',
      );
    }
    // As devflow links them: the checkout's node_modules -> the user's -> (here) the runner cache.
    await symlink(modules, join(repo, "node_modules"));
    await symlink(join(repo, "node_modules"), join(checkout, "node_modules"));
    const hadTemp = existsSync(join(modules, ".vite-temp"));
    const run = await runVerifierCommand({
      command: "./node_modules/.bin/vitest run",
      cwd: checkout,
      timeoutMs: 60_000,
      logPath: join(repo, "vitest.log"),
      mounts: {
        readOnly: repo,
        hide: join(repo, ".devflow"),
        dependencies: [{ path: modules, copyOnWrite: true }],
      },
    });
    expect(run.output).not.toContain("EROFS");
    // The fixture's seam test fails on purpose; the other five pass.
    expect(run.output).toMatch(/1 failed \| 5 passed/);
    expect(existsSync(join(modules, ".vite-temp"))).toBe(hadTemp);
  }, 120_000);
});
