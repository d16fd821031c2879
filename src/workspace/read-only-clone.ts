import { mkdir, rm } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { gitComplaint } from "./clone.js";
import { gitAt, gitSucceeds, runGit } from "./git.js";
import { redactUrl } from "./git-url.js";

/**
 * While the clone talks to the remote it keeps the user's config (credential helpers, proxies,
 * `url.*.insteadOf`), but none of it may run a program in the clone: no hooks (the user's
 * `core.hooksPath`, or an `init.templateDir` whose hooks a later git call would run), no fsmonitor.
 * HOME is writable to coders of earlier change tickets (ADR 0021), so that config is not trusted.
 */
const NO_PROGRAMS_CONFIG = ["core.hooksPath=/dev/null", "core.fsmonitor=false"];

/**
 * A fresh clone of `url` at `dir` for reading only (a read-only ticket of a git URL, ADR 0057):
 * the remote's default branch at its newest commit, nothing else (depth 1, no tags). Whatever was
 * at `dir` is removed first (a folder an earlier run left is not the remote's). The clone is
 * fetched without a checkout and its files are written by devflow's isolated git afterwards, so no
 * smudge filter or hook from the user's (coder-writable) global config runs. A clone only fetches:
 * nothing is ever written to the remote. Returns the clone's top level; a failed clone leaves no
 * folder behind.
 */
export async function cloneForReading({ url, dir }: { url: string; dir: string }): Promise<string> {
  const target = resolve(dir);
  const shownUrl = redactUrl(url);
  await rm(target, { recursive: true, force: true });
  await mkdir(dirname(target), { recursive: true });
  try {
    await gitAt(dirname(target), {
      userConfig: true,
      config: NO_PROGRAMS_CONFIG,
      allowHooksPathOverride: true,
      allowProgramOverrides: true,
    })
      .raw([
        "clone",
        "--quiet",
        "--no-checkout",
        "--depth=1",
        "--single-branch",
        "--no-tags",
        // No template: nothing from the user's init.templateDir (hooks included) lands in the clone.
        "--template=",
        "--",
        url,
        target,
      ])
      .catch((error: unknown) => {
        throw new DevflowError(
          "CLONE_FAILED",
          `could not clone ${shownUrl}: ${gitComplaint(error, url)} (check the URL and your access; devflow never prompts for credentials, so set up a credential helper or SSH key)`,
          { cause: error },
        );
      });
    if (!(await gitSucceeds(target, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])))
      throw new DevflowError(
        "REPO_UNUSABLE",
        `the repository at ${shownUrl} has no commits yet: nothing to read`,
      );
    // devflow's own git (no global config, no hooks, no fsmonitor) writes the files of HEAD.
    await runGit(target, ["reset", "--hard", "--quiet", "HEAD"]);
    return target;
  } catch (error) {
    await rm(target, { recursive: true, force: true });
    throw error;
  }
}
