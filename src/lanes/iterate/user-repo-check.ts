import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { isTaskId, taskDir, taskRunIsLive } from "../../home/index.js";
import { nowIso } from "../../util/time.js";
import {
  compareFingerprints,
  compareObjectStores,
  type DevflowRefJudge,
  fingerprintRepo,
  type RepoFingerprint,
  uncommittedPaths,
} from "../../workspace/index.js";
import type { Reporter } from "./lane/reporter.js";

/**
 * The "before" fingerprint in the task dir, written by the first run only, so a resumed run
 * compares with the real start. Not an artifact (the store validates artifacts; this is devflow's
 * own bookkeeping, validated here on read). The findings go to events.jsonl and the terminal.
 */
export const FINGERPRINT_FILE = "user_repo_fingerprint.json";

const Fingerprint = z.object({
  version: z.literal(1),
  head: z.object({ symbolic: z.string().nullable(), commit: z.string().nullable() }),
  refs: z.record(z.string(), z.string()),
  // Absent in fingerprints stored before devflow's branches were judged: then none is judged.
  devflow_refs: z.record(z.string(), z.string()).optional(),
  git_files: z.record(z.string(), z.string()),
  // Absent in fingerprints stored before the object store was taken: then it is not judged.
  objects: z.record(z.string(), z.string()).optional(),
  status: z.array(z.string()),
  files: z.record(z.string(), z.string()),
  ignored: z.object({ mode: z.enum(["content", "stat", "count"]), count: z.number(), hash: z.string() }),
});
const Stored = z.object({ at: z.string(), fingerprint: Fingerprint });
type StoredFingerprint = z.infer<typeof Fingerprint>;

const TASK_REF_PREFIX = "refs/heads/devflow/";

/**
 * Which changes of devflow's task branches are devflow's own (issue 9, class 7: a coder moved
 * another task's result branch and the run still completed). The run's own branch is judged by
 * the branch guard and the compare-and-swap commit; another task's branch may change only while
 * a run of that task is live (its own check judges it) or to a commit that task's record names.
 * Anything else, a removal included, is a finding.
 */
function devflowRefJudge(repoRoot: string, ownTaskId: string): DevflowRefJudge {
  return (ref, oid) => {
    const id = ref.slice(TASK_REF_PREFIX.length);
    if (id === ownTaskId) return true;
    if (!isTaskId(id)) return false;
    if (taskRunIsLive(repoRoot, id)) return true;
    if (oid === null) return false;
    try {
      return readFileSync(join(taskDir(repoRoot, id), "iterator_run.json"), "utf8").includes(`"${oid}"`);
    } catch {
      return false;
    }
  };
}

export interface UserRepoFinding {
  finding: "user_repo_changed";
  repo: string;
  changes: string[];
  /** One line for the terminal reason and the CLI. */
  summary: string;
}

/**
 * The user's checkout is fingerprinted when a task starts and compared at every exit of the run
 * (issue 9, class 7; ADR 0020). The first run of a task stores the fingerprint in the task dir; a
 * resumed run reuses it, so a change made while the task was stopped (by a coder left behind, or
 * by hand) is reported too.
 */
export class UserRepoCheck {
  private constructor(
    private readonly repoRoot: string,
    private readonly taskId: string,
    private readonly before: RepoFingerprint | StoredFingerprint,
  ) {}

  static async start(repoRoot: string, artifactDir: string, reporter: Reporter): Promise<UserRepoCheck> {
    const file = join(artifactDir, FINGERPRINT_FILE);
    let before = readStored(file);
    if (before === null) {
      before = await fingerprintRepo(repoRoot);
      writeFileSync(`${file}.tmp`, `${JSON.stringify({ at: nowIso(), fingerprint: before })}\n`);
      renameSync(`${file}.tmp`, file);
      const dirty = uncommittedPaths(before);
      if (dirty.length > 0) {
        const head = before.head.commit?.slice(0, 10) ?? "(none)";
        const shown = `${dirty.slice(0, 5).join(", ")}${dirty.length > 5 ? ", …" : ""}`;
        await reporter.info(
          "repo",
          `the task starts from HEAD ${head}; uncommitted changes are not included (${dirty.length} path(s): ${shown})`,
          { uncommitted: dirty.slice(0, 50) },
          { ok: false },
        );
      }
    }
    return new UserRepoCheck(repoRoot, basename(artifactDir), before);
  }

  /** Compares the checkout with the start: null when identical, else the finding. */
  async finish(): Promise<UserRepoFinding | null> {
    const after = await fingerprintRepo(this.repoRoot);
    const before: RepoFingerprint = {
      ...this.before,
      devflow_refs: this.before.devflow_refs ?? after.devflow_refs,
    };
    const changes = [
      ...compareFingerprints(before, after, devflowRefJudge(this.repoRoot, this.taskId)),
      ...(await compareObjectStores(this.repoRoot, before, after)),
    ];
    if (changes.length === 0) return null;
    const more = changes.length > 3 ? `; and ${changes.length - 3} more, see events.jsonl` : "";
    const summary = `user_repo_changed: your checkout ${this.repoRoot} changed during the run (${changes.slice(0, 3).join("; ")}${more})`;
    return { finding: "user_repo_changed", repo: this.repoRoot, changes, summary };
  }
}

/** The stored fingerprint, or null when there is none or it is unreadable (then a new one is taken). */
function readStored(file: string): StoredFingerprint | null {
  if (!existsSync(file)) return null;
  try {
    return Stored.parse(JSON.parse(readFileSync(file, "utf8"))).fingerprint;
  } catch {
    return null;
  }
}
