import { tmpdir } from "node:os";
import { parseVersion } from "../coders/cli/cli-backend.js";
import { baseEnv } from "../process/env.js";
import { findExecutable } from "../process/find-executable.js";
import { runProcess } from "../process/run-process.js";
import type { ToolCheck } from "./types.js";
import { atLeast } from "./version.js";

/** The oldest git devflow supports for its worktrees, diffs and commits. */
export const MIN_GIT = "2.30";
const VERSION_TIMEOUT_MS = 10_000;
const INSTALL_GIT =
  `Install git ${MIN_GIT} or newer: https://git-scm.com/downloads (Debian/Ubuntu: \`sudo apt-get install git\`, ` +
  "macOS: `brew install git`), and make sure it is on PATH.";

/** Finds git on the PATH devflow's children get and runs `git --version` there. */
export async function checkGit(env: NodeJS.ProcessEnv = process.env): Promise<ToolCheck> {
  const childEnv = baseEnv({}, env);
  const path = findExecutable("git", childEnv.PATH);
  const base = { name: "git" as const, required: MIN_GIT, path };
  if (path === null) {
    return { ...base, status: "fail", version: null, detail: "git is not on PATH", hint: INSTALL_GIT };
  }
  const run = await runProcess({
    command: path,
    args: ["--version"],
    cwd: tmpdir(),
    env: childEnv,
    stdin: "closed",
    timeoutMs: VERSION_TIMEOUT_MS,
    maxOutputBytes: 64 * 1024,
  });
  const version = run.exitCode === 0 ? parseVersion(run.output) : null;
  if (version === null) {
    const why = run.timedOut ? "timed out" : `exit code ${run.exitCode ?? run.spawnError ?? "none"}`;
    return {
      ...base,
      status: "fail",
      version: null,
      detail: `\`${path} --version\` did not report a version (${why})`,
      hint: INSTALL_GIT,
    };
  }
  if (!atLeast(version, MIN_GIT)) {
    return {
      ...base,
      status: "fail",
      version,
      detail: `git ${version} is older than ${MIN_GIT}`,
      hint: INSTALL_GIT,
    };
  }
  return { ...base, status: "ok", version, detail: `git ${version}`, hint: null };
}
