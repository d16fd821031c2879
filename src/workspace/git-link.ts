import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { pinGitDir, runGit } from "./git.js";
import { samePath } from "./paths.js";

/**
 * How a task checkout is linked to its repository, recorded before any coder ran (ADR 0022):
 * the real git dir (`<repo>/.git/worktrees/<id>` for a worktree, `<clone>/.git` for a clone), the
 * content of the worktree's `.git` file (null: a clone's `.git` directory) and the common dir it
 * shares with the user's repository.
 */
export interface GitLink {
  gitDir: string;
  gitFile: string | null;
  commonDir: string;
}

/** Reads a fresh checkout's link (devflow just created it) and pins devflow's git to its git dir. */
export async function recordGitLink(worktree: string): Promise<GitLink> {
  const gitDir = (await runGit(worktree, ["rev-parse", "--absolute-git-dir"])).trim();
  const commonDir = resolve(worktree, (await runGit(worktree, ["rev-parse", "--git-common-dir"])).trim());
  const dotGit = join(worktree, ".git");
  const gitFile = lstatSync(dotGit).isFile() ? readFileSync(dotGit, "utf8") : null;
  const link = { gitDir, gitFile, commonDir };
  pinGitDir(worktree, gitDir);
  RECORDED.set(resolve(worktree), link);
  return link;
}

const RECORDED = new Map<string, GitLink>();

/**
 * recordGitLink for a clone devflow has just made at `worktree` with a `.git` directory of its own
 * (task-worktree.ts): the link is known without asking git (two processes saved per task, issue 11),
 * and is what `rev-parse --absolute-git-dir` / `--git-common-dir` answer there (pinned by
 * task-worktree.test.ts).
 */
export function recordNewCloneLink(worktree: string): GitLink {
  if (!lstatSync(join(worktree, ".git")).isDirectory())
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `${join(worktree, ".git")} is not the git directory devflow made`,
    );
  const link = {
    gitDir: join(realpathSync(worktree), ".git"),
    gitFile: null,
    commonDir: resolve(worktree, ".git"),
  };
  pinGitDir(worktree, link.gitDir);
  RECORDED.set(resolve(worktree), link);
  return link;
}

/**
 * The tamper check of a checkout's link against what devflow recorded in this process when it
 * created or reopened the checkout; [] when intact or when devflow never opened `worktree`.
 */
export function checkGitLink(worktree: string): string[] {
  const link = RECORDED.get(resolve(worktree));
  return link ? gitLinkFindings(worktree, link) : [];
}

/**
 * Reopens a worktree's link from the user's repository (git's own bookkeeping under
 * `<common dir>/worktrees/*`), never from the worktree's `.git` file, which a coder may have
 * rewritten; a `.git` file that no longer matches is refused.
 */
export async function reopenWorktreeLink(repoRoot: string, worktree: string): Promise<GitLink> {
  const commonDir = resolve(repoRoot, (await runGit(repoRoot, ["rev-parse", "--git-common-dir"])).trim());
  const admin = join(commonDir, "worktrees");
  let gitDir: string | null = null;
  for (const name of safeReaddir(admin)) {
    const back = safeRead(join(admin, name, "gitdir"))?.trim();
    if (back && samePath(back, join(worktree, ".git"))) gitDir = join(admin, name);
  }
  if (!gitDir)
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `${worktree} has no git bookkeeping in ${admin}; start the task again`,
    );
  const gitFile = safeRead(join(worktree, ".git"));
  const target = /^gitdir: (.+)$/m.exec(gitFile ?? "")?.[1];
  const link: GitLink = { gitDir, gitFile: gitFile ?? "", commonDir };
  const findings = gitLinkFindings(worktree, link);
  if (!target || !samePath(resolve(worktree, target), gitDir))
    findings.unshift(`${join(worktree, ".git")} does not link the worktree to ${gitDir}`);
  return adoptLink(worktree, link, findings);
}

/** Reopens a clone's link: its `.git` must still be a directory. */
export function reopenCloneLink(dir: string): GitLink {
  const gitDir = join(dir, ".git");
  const link: GitLink = { gitDir, gitFile: null, commonDir: gitDir };
  return adoptLink(dir, link, gitLinkFindings(dir, link));
}

/** A reopened checkout is usable only with no finding; then its git dir is pinned and recorded. */
function adoptLink(dir: string, link: GitLink, findings: string[]): GitLink {
  if (findings.length)
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `${findings.join("; ")}; start the task again without --resume`,
    );
  pinGitDir(dir, link.gitDir);
  RECORDED.set(resolve(dir), link);
  return link;
}

/**
 * What changed in the checkout's link since it was recorded: the worktree's `.git` file (its
 * content), a clone's `.git` (no longer a directory), or the git dir's `commondir` (no longer the
 * recorded repository). Empty: intact. Each finding is a tamper finding for the gate and commit.
 */
export function gitLinkFindings(worktree: string, link: GitLink): string[] {
  const findings: string[] = [];
  const dotGit = join(worktree, ".git");
  let stat: ReturnType<typeof lstatSync> | null = null;
  try {
    stat = lstatSync(dotGit);
  } catch {}
  if (link.gitFile === null) {
    if (!stat?.isDirectory()) findings.push(`${dotGit} is no longer the clone's git directory`);
    return findings;
  }
  const now = stat?.isFile() ? safeRead(dotGit) : null;
  if (now !== link.gitFile)
    findings.push(
      `${dotGit} no longer links the worktree to ${link.gitDir} (it now says ${JSON.stringify(now?.trim() ?? "nothing")})`,
    );
  const commondir = safeRead(join(link.gitDir, "commondir"))?.trim();
  const points = commondir ? (isAbsolute(commondir) ? commondir : resolve(link.gitDir, commondir)) : null;
  if (!points || !sameReal(points, link.commonDir))
    findings.push(`${join(link.gitDir, "commondir")} no longer points at ${link.commonDir}`);
  return findings;
}

function sameReal(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return samePath(a, b);
  }
}

function safeRead(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
