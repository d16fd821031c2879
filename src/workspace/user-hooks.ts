import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { runGit } from "./git.js";

/** The client-side hooks devflow can run as checks of its commit (config commit.hooks, ADR 0047). */
export const CHECK_HOOKS = ["pre-commit", "commit-msg"] as const;
export type CheckHook = (typeof CHECK_HOOKS)[number];

/**
 * The executable hook `name` of the user's repository, or null: the repository's own
 * `core.hooksPath` (its .git/config only; devflow's git never reads global config, ADR 0037), else
 * `<git common dir>/hooks`. Git itself runs only executable regular files; so does devflow.
 */
export async function userHookPath(repoRoot: string, name: CheckHook): Promise<string | null> {
  const configured = (
    await runGit(repoRoot, ["config", "--local", "--get", "core.hooksPath"]).catch(() => "")
  ).trim();
  const common = (await runGit(repoRoot, ["rev-parse", "--git-common-dir"])).trim();
  const dir = configured
    ? isAbsolute(configured)
      ? configured
      : resolve(repoRoot, configured)
    : join(resolve(repoRoot, common), "hooks");
  const path = join(dir, name);
  try {
    if (!statSync(path).isFile()) return null;
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return null;
  }
}
