import { existsSync, mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { ensureDevflowDir } from "../home/paths.js";
import { errorText } from "./errors.js";
import { gitAt, gitSucceeds } from "./git.js";
import { redactUrl } from "./git-url.js";
import { createTaskWorktree, openTaskWorktree } from "./task-worktree.js";
import type { TaskWorkspace } from "./types.js";

export interface CloneRequest {
  url: string;
  /** The clone goes to `<baseDir>/<taskId>`. */
  baseDir: string;
  taskId: string;
}

/**
 * Clones `url` into a fresh `<baseDir>/<taskId>` (devflow's own repository, standing in for the
 * user's) and makes the coder's checkout of it with branch `devflow/<taskId>` (createTaskWorktree).
 * An existing folder is refused so nothing is ever overwritten; a failed clone leaves no folder
 * behind. devflow's own files go to `.devflow/` inside the clone (ignored by git).
 */
export async function cloneForTask({ url, baseDir, taskId }: CloneRequest): Promise<TaskWorkspace> {
  const target = resolve(baseDir, taskId);
  const shownUrl = redactUrl(url);
  if (existsSync(target)) {
    throw new DevflowError(
      "CHECKOUT_EXISTS",
      `refusing to clone into ${target}: the folder already exists (remove it, or choose another task id or base directory)`,
    );
  }
  // The first folder this call creates (baseDir may not exist yet): a failed clone removes it too.
  const madeBaseDir = mkdirSync(resolve(baseDir), { recursive: true });
  try {
    // The user's own config (credential helpers, proxies, url rewrites) for the network.
    await gitAt(resolve(baseDir), { userConfig: true })
      .raw(["clone", "--", url, target])
      .catch((error: unknown) => {
        throw new DevflowError(
          "CLONE_FAILED",
          `could not clone ${shownUrl}: ${gitComplaint(error, url)} (check the URL and your access; devflow never prompts for credentials, so set up a credential helper or SSH key)`,
          { cause: error },
        );
      });
    if (!(await gitSucceeds(target, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]))) {
      throw new DevflowError(
        "REPO_UNUSABLE",
        `the repository at ${shownUrl} has no commits yet (commit once so devflow can branch from HEAD)`,
      );
    }
    // The clone is devflow's own repository standing in for the user's; the coder gets its own
    // checkout of it under `.devflow/worktrees/<id>`, like for a local repository (ADR 0025).
    ensureDevflowDir(target);
    const workspace = await createTaskWorktree({ repoRoot: target, taskId });
    return { ...workspace, kind: "clone" };
  } catch (error) {
    // The folder did not exist before this call, so removing it only undoes our own work.
    await rm(madeBaseDir ?? target, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Removes the clone `cloneForTask` made for a task that never got going (its setup failed before
 * the run was recorded), so the same URL task can simply be started again. Only for a clone made
 * by this process in this run: the caller knows it did not exist before.
 */
export async function removeTaskClone(workspace: TaskWorkspace): Promise<void> {
  if (workspace.kind !== "clone") throw new Error("removeTaskClone: not a clone");
  await rm(workspace.repoRoot, { recursive: true, force: true });
}

/** Reopens the clone of an earlier run of `taskId` (for --resume), checking it is still usable. */
export async function openTaskClone({
  cloneDir,
  taskId,
  baseCommit,
}: {
  cloneDir: string;
  taskId: string;
  baseCommit: string;
}): Promise<TaskWorkspace> {
  const dir = resolve(cloneDir);
  if (!existsSync(dir)) {
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `the clone of task ${taskId} is gone (${dir}); it cannot be resumed, start the task again without --resume`,
    );
  }
  const workspace = await openTaskWorktree({ repoRoot: dir, taskId, baseCommit });
  return { ...workspace, kind: "clone" };
}

/** git's own reason, on one line, without progress chatter or the credentials in the URL. */
export function gitComplaint(error: unknown, url: string): string {
  const text = errorText(error)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("Cloning into"))
    .join(" ");
  if (url === redactUrl(url)) return text;
  // git names the host with its credentials too ("unable to look up user:token@host"), not only
  // the whole URL: every `<user/password>@`, and the password wherever it appears, is masked (the
  // user part alone only before an `@`: a user name like "git" is also an ordinary word).
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/@]*)@/i.exec(url)?.[1] ?? "";
  const password = userinfo.includes(":") ? userinfo.slice(userinfo.indexOf(":") + 1) : "";
  const masked = text.split(url).join(redactUrl(url)).split(`${userinfo}@`).join("***@");
  return password === "" ? masked : masked.split(password).join("***");
}
