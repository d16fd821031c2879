/**
 * Byte-level fingerprint of a user's checkout, `.git` internals included: every file's content
 * hash, mode and symlink target. Used to prove that a devflow run left the user's repository
 * byte-identical except for what devflow is allowed to write (see `devflowMayChange`).
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/** relative path -> "<kind> <mode> <sha256 or link target>" */
export type RepoFingerprint = Map<string, string>;

export function fingerprintRepo(root: string): RepoFingerprint {
  const out: RepoFingerprint = new Map();
  const walk = (rel: string) => {
    const full = rel ? join(root, rel) : root;
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      // devflow's home is allowed to change as a whole (DEVFLOW_MAY_CHANGE), and its SQLite
      // side files come and go while a connection closes: recorded, never walked.
      if (path === ".devflow") {
        out.set(".devflow/", "dir (devflow's home, not walked)");
        continue;
      }
      const stat = lstatSync(join(root, path));
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isSymbolicLink()) out.set(path, `link ${readlinkSync(join(root, path))}`);
      else if (stat.isDirectory()) {
        out.set(`${path}/`, `dir ${mode}`);
        walk(path);
      } else {
        const sha = createHash("sha256")
          .update(readFileSync(join(root, path)))
          .digest("hex");
        out.set(path, `file ${mode} ${sha}`);
      }
    }
  };
  walk("");
  return out;
}

export interface FingerprintChange {
  path: string;
  change: "added" | "removed" | "changed";
}

/** What differs between two fingerprints (sorted by path). */
export function fingerprintChanges(before: RepoFingerprint, after: RepoFingerprint): FingerprintChange[] {
  const changes: FingerprintChange[] = [];
  for (const [path, value] of before) {
    const now = after.get(path);
    if (now === undefined) changes.push({ path, change: "removed" });
    else if (now !== value) changes.push({ path, change: "changed" });
  }
  for (const path of after.keys()) if (!before.has(path)) changes.push({ path, change: "added" });
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * THE allowlist: everything devflow may change in the user's checkout during a run of task
 * `taskId`. One constant so the checkouts work (a clone instead of a linked worktree) changes
 * one place. Anything else that differs after a run is a finding.
 */
export const DEVFLOW_MAY_CHANGE = (taskId: string): AllowRule[] => {
  const id = escapeRegExp(taskId);
  const rule = (
    why: string,
    re: RegExp,
    changes: FingerprintChange["change"][] = ["added", "changed", "removed"],
  ) => ({
    why,
    matches: (c: FingerprintChange) => re.test(c.path) && changes.includes(c.change),
  });
  return [
    // devflow's home inside the checkout: task artifacts, the coder's worktree, its own .gitignore.
    rule("devflow's home", /^\.devflow(\/|$)/),
    // The task branch and its reflog (their parent `devflow/` dirs appear on first use).
    rule("the task branch", new RegExp(`^\\.git/refs/heads/devflow/(${id})?$`)),
    rule("the task branch's reflog", new RegExp(`^\\.git/logs/refs/heads/devflow/(${id})?$`)),
    // devflow's commit ships the verified tree's objects as one pack (ADR 0024); nothing else
    // under objects/ may appear: the coder writes into its own clone (ADR 0025).
    rule("the commit's pack", /^\.git\/objects\/pack\/?$/, ["added"]),
    rule("the commit's pack", /^\.git\/objects\/pack\/pack-[0-9a-f]{40,64}\.(pack|idx|rev)$/, ["added"]),
  ];
};

export interface AllowRule {
  why: string;
  matches: (c: FingerprintChange) => boolean;
}

/** The changes not covered by the allowlist: each is something devflow (or a coder) must not have done. */
export function unexpectedChanges(
  before: RepoFingerprint,
  after: RepoFingerprint,
  taskId: string,
): FingerprintChange[] {
  const allowed = DEVFLOW_MAY_CHANGE(taskId);
  return fingerprintChanges(before, after).filter((c) => !allowed.some((a) => a.matches(c)));
}
