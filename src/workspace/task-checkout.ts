import { DevflowError } from "../errors/index.js";

import { gitSucceeds, runGit } from "./git.js";
import { samePath } from "./paths.js";

/**
 * Checks that `dir` is the top of its own git checkout, on `branch`, and that `baseCommit`
 * still exists there: what a resumed task relies on.
 */
export async function assertTaskCheckout(dir: string, branch: string, baseCommit: string): Promise<void> {
  const topLevel = await runGit(dir, ["rev-parse", "--show-toplevel"]).catch(() => undefined);
  if (topLevel === undefined || !samePath(topLevel.trim(), dir)) {
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `${dir} exists but is not a git checkout of its own; remove it and start the task again without --resume`,
    );
  }
  const current = (await runGit(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"]).catch(() => "")).trim();
  if (current !== branch) {
    const where = current === "" ? "a detached HEAD" : `branch ${current}`;
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `${dir} is on ${where}, expected ${branch}; check out ${branch} there (\`git -C ${dir} checkout ${branch}\`) and resume again`,
    );
  }
  if (baseCommit.startsWith("-") || !(await gitSucceeds(dir, ["cat-file", "-e", `${baseCommit}^{commit}`]))) {
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `base commit ${baseCommit} of ${branch} is not in ${dir}; the task's history was rewritten, start it again without --resume`,
    );
  }
}
