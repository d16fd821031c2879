import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { changedBinaries, resolveInvocation, runWithReport } from "./report-run.js";

function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-report-run-"));
  mkdirSync(join(dir, "node_modules", "mocha", "bin"), { recursive: true });
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "mocha", "bin", "mocha.js"), "#!/usr/bin/env node\n");
  symlinkSync("../mocha/bin/mocha.js", join(dir, "node_modules", ".bin", "mocha"));
  return dir;
}

describe("pinned runner binaries (ADR 0022)", () => {
  it("pins the runner's binary on base and reports a swapped or rewritten one", () => {
    const dir = checkout();
    const resolved = resolveInvocation("mocha test/x.js", dir);
    if (resolved.kind !== "runner") throw new Error("expected a runner");
    const mocha = resolved.invocation.binaries?.find((b) => b.name === "mocha");
    expect(mocha?.path).toBe(join(dir, "node_modules", "mocha", "bin", "mocha.js"));
    expect(changedBinaries(resolved.invocation, dir)).toEqual([]);

    // Same path, other bytes.
    writeFileSync(join(dir, "node_modules", "mocha", "bin", "mocha.js"), "#!/usr/bin/env node\n// patched\n");
    expect(changedBinaries(resolved.invocation, dir)).toHaveLength(1);
    writeFileSync(join(dir, "node_modules", "mocha", "bin", "mocha.js"), "#!/usr/bin/env node\n");
    // A binary absent on base that now exists.
    writeFileSync(join(dir, "node_modules", ".bin", "_mocha"), "#!/bin/sh\n");
    expect(changedBinaries(resolved.invocation, dir)[0]).toMatch(/_mocha resolves to .* not nothing/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs `node` as devflow's own node, never the checkout's node_modules/.bin/node", async () => {
    const dir = checkout();
    writeFileSync(join(dir, "node_modules", ".bin", "node"), "#!/bin/sh\necho HIJACKED; exit 0\n", {
      mode: 0o755,
    });
    const logPath = join(mkdtempSync(join(tmpdir(), "devflow-report-log-")), "run.log");
    const { run } = await runWithReport({
      invocation: { runner: "node-test", script: "node -e 'console.log(process.execPath)'" },
      cwd: dir,
      timeoutMs: 30_000,
      logPath,
      reportPath: `${logPath}.report`,
    });
    expect(run.output).not.toContain("HIJACKED");
    expect(run.output).toContain(process.execPath);
    rmSync(dir, { recursive: true, force: true });
  });
});
