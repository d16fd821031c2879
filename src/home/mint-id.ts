import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import slugify from "@sindresorhus/slugify";
import { ensureDevflowDir, type RecordLane, recordRoot, taskDirTaken } from "./paths.js";
import { isTaskId } from "./task-id.js";

/**
 * Every id devflow makes up is minted here: task ids from a request, record ids for insight and
 * idea, chat thread ids. (Ids a user passes in, `--task-id`, are only checked: task-id.ts.)
 */

const TASK_SLUG_LENGTH = 60;
const RECORD_SLUG_LENGTH = 40;

/** Default task id: the slug of the request ("Add login form" → add-login-form); null when it has no letters or digits. */
export function taskIdFromRequest(request: string): string | null {
  const slug = slugify(request).slice(0, TASK_SLUG_LENGTH).replace(/-+$/, "");
  return slug && isTaskId(slug) ? slug : null;
}

/**
 * A task id from the request that no task of this repository uses yet (the same request twice
 * gets `-2`); `fallback` when the request has nothing to slug.
 */
export function freshTaskId(repoRoot: string, request: string, fallback = "chat-task"): string {
  const base = taskIdFromRequest(request) ?? fallback;
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!taskDirTaken(repoRoot, id)) return id;
  }
}

/**
 * Claims a fresh record dir `.devflow/<lane>/<yyyymmdd-hhmmss>-<slug of the text>` and returns its
 * id. mkdir is the claim, so two records made in the same second from the same text get `-2`, `-3`, ….
 */
export function claimRecordId(repoRoot: string, lane: RecordLane, text: string, now = new Date()): string {
  ensureDevflowDir(repoRoot);
  const root = recordRoot(repoRoot, lane);
  mkdirSync(root, { recursive: true });
  const slug = slugify(text).slice(0, RECORD_SLUG_LENGTH).replace(/-+$/, "") || lane;
  for (let n = 1; ; n++) {
    const id = `${stamp(now)}-${slug}${n > 1 ? `-${n}` : ""}`;
    try {
      mkdirSync(join(root, id));
      return id;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** Chat thread ids: `chat-<yyyymmdd-hhmmss>-<4 hex>`, never a valid-looking task id clash. */
export function newThreadId(now = new Date()): string {
  return `chat-${stamp(now)}-${randomBytes(2).toString("hex")}`;
}

const stamp = (now: Date): string => now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
