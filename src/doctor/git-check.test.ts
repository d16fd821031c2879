import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkGit } from "./git-check.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A bin dir whose `git` prints `versionLine` (an empty dir when null). */
function binWithGit(versionLine: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-doctor-git-"));
  dirs.push(dir);
  if (versionLine !== null) {
    writeFileSync(join(dir, "git"), `#!/bin/sh\necho "${versionLine}"\n`);
    chmodSync(join(dir, "git"), 0o755);
  }
  return dir;
}

describe("checkGit", () => {
  it("passes the git on this machine", async () => {
    const check = await checkGit();
    expect(check.status).toBe("ok");
    expect(check.version).toMatch(/^\d+\.\d+/);
  });

  it("fails a git older than 2.30 and says how to install a newer one", async () => {
    const dir = binWithGit("git version 2.29.2");
    const check = await checkGit({ PATH: dir });
    expect(check).toMatchObject({ status: "fail", version: "2.29.2", path: join(dir, "git") });
    expect(check.detail).toBe("git 2.29.2 is older than 2.30");
    expect(check.hint).toContain("Install git 2.30 or newer");
  });

  it("reads vendor-suffixed versions", async () => {
    const check = await checkGit({ PATH: binWithGit("git version 2.45.1.windows.1") });
    expect(check).toMatchObject({ status: "ok", version: "2.45.1" });
  });

  it("fails when git is not on PATH", async () => {
    const check = await checkGit({ PATH: binWithGit(null) });
    expect(check).toMatchObject({ status: "fail", version: null, path: null, detail: "git is not on PATH" });
    expect(check.hint).toContain("https://git-scm.com/downloads");
  });
});
