import { lstatSync } from "node:fs";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { devflowDir } from "../home/paths.js";
import { gitOutputAndExit } from "./git.js";

/**
 * Checks that `path` is inside a git working tree with at least one commit and returns the
 * repository's top-level directory (devflow branches from HEAD, so an unborn HEAD is useless).
 */
export async function assertGitRepo(path: string): Promise<string> {
  const dir = resolve(path);
  const info = await stat(dir).catch(() => undefined);
  if (!info) {
    throw new DevflowError(
      "REPO_UNUSABLE",
      `repository path does not exist: ${dir} (check the path, or pass --repo <path>)`,
    );
  }
  if (!info.isDirectory()) {
    throw new DevflowError(
      "REPO_UNUSABLE",
      `repository path is not a directory: ${dir} (pass the repository folder)`,
    );
  }
  // One git process (issue 11: it was four, one through simple-git): rev-parse prints each answer
  // on its line and stops at the first it cannot give, so how far it got says what is wrong.
  const { exitCode, stdout, stderr } = await gitOutputAndExit(dir, [
    "rev-parse",
    "--is-inside-work-tree",
    "--show-toplevel",
    "-q",
    "--verify",
    "HEAD^{commit}",
  ]);
  const [inside = "", topLevel = "", head = ""] = stdout.split("\n").map((line) => line.trim());
  if (inside === "false") {
    throw new DevflowError(
      "REPO_UNUSABLE",
      `${dir} is a bare repository or a .git folder, not a working tree (pass a checkout, or its URL to clone)`,
    );
  }
  if (inside !== "true" || topLevel === "") {
    const reason = stderr.trim() || `git rev-parse exited with ${exitCode}`;
    if (/not a git repository/i.test(reason)) {
      throw new DevflowError(
        "REPO_UNUSABLE",
        `not a git repository: ${dir} (run \`git init\` there, or pass --repo <path>)`,
      );
    }
    // e.g. "detected dubious ownership": git's own message says what to run.
    throw new DevflowError("REPO_UNUSABLE", `git cannot use the repository at ${dir}: ${reason}`);
  }
  if (exitCode !== 0 || head === "") {
    throw new DevflowError(
      "REPO_UNUSABLE",
      `git repository ${topLevel} has no commits yet (commit once so devflow can branch from HEAD)`,
    );
  }
  assertDevflowDirNotALink(topLevel);
  return topLevel;
}

/**
 * devflow's home (`<repo>/.devflow`) must be a real folder or absent. A repository can track it as
 * a symbolic link (and a coder without a mount namespace can plant one): devflow would then write
 * its state elsewhere, and reuse and `devflow clean` would delete folders wherever it leads
 * (session-17 review). Refused before any command uses it; only the user removes the link.
 */
function assertDevflowDirNotALink(topLevel: string): void {
  const home = devflowDir(topLevel);
  let isLink = false;
  try {
    isLink = lstatSync(home).isSymbolicLink();
  } catch {
    return; // absent: devflow creates it as a folder
  }
  if (isLink)
    throw new DevflowError(
      "REPO_UNUSABLE",
      `${home} is a symbolic link; devflow keeps its state there and never follows a link (remove the link, and untrack it if the repository tracks it)`,
    );
}
