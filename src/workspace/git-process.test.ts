/**
 * git without execa (issue 11, ADR 0050): runGitProcess must still answer every way a git process
 * can end (it replaced execa's `reject: false` result), never hang and never pass a failure off as
 * output: a start failure, a non-zero exit with its stderr, output over the cap (killed), stdin
 * from text and from a file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGitProcess } from "./git-process.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "devflow-git-process-"));
  dirs.push(dir);
  return dir;
};
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

describe("runGitProcess", () => {
  it("reads stdin from text and from a file", async () => {
    const cwd = scratch();
    const fromText = await runGitProcess(["hash-object", "--stdin"], {
      cwd,
      env,
      input: "x\n",
      maxBuffer: 1 << 20,
    });
    writeFileSync(join(cwd, "in"), "x\n");
    const fromFile = await runGitProcess(["hash-object", "--stdin"], {
      cwd,
      env,
      inputFile: join(cwd, "in"),
      maxBuffer: 1 << 20,
    });
    expect(fromText).toEqual({
      exitCode: 0,
      stdout: "587be6b4c3f93f93c489c0111bba5596147a26cb\n",
      stderr: "",
      failed: false,
      shortMessage: "",
    });
    expect(fromFile).toEqual(fromText);
  });

  it("fails with git's stderr on a non-zero exit, and when git cannot start", async () => {
    const cwd = scratch();
    const outside = await runGitProcess(["rev-parse", "HEAD"], { cwd, env, maxBuffer: 1 << 20 });
    expect(outside).toMatchObject({ exitCode: 128, failed: true });
    expect(outside.stderr).toMatch(/not a git repository/);
    const missing = await runGitProcess(["status"], { cwd: join(cwd, "gone"), env, maxBuffer: 1 << 20 });
    expect(missing).toMatchObject({ exitCode: undefined, failed: true });
    expect(missing.shortMessage).toMatch(/could not be started/);
  });

  it("kills git and fails when its output passes the cap", async () => {
    const cwd = scratch();
    const big = await runGitProcess(["hash-object", "--stdin"], { cwd, env, input: "x", maxBuffer: 10 });
    expect(big).toMatchObject({ exitCode: undefined, failed: true });
    expect(big.shortMessage).toMatch(/printed more than 10 bytes/);
  });
});
