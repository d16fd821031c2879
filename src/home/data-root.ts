import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { assertTaskId, isTaskId } from "./task-id.js";

/**
 * The daemon's data root (issue 12, ADR 0051): one folder for everything `devflow daemon` and its
 * commands write, `~/.devflow` unless `DEVFLOW_HOME` names another. Every path under it is built
 * here, as every path under a repository's `.devflow/` is built in paths.ts: src/home is the one
 * owner of devflow's paths.
 *
 *   <root>/.gitignore                          `*`: a data root inside a checkout never dirties it
 *   <root>/config.json                         the daemon's config (DaemonConfig), optional
 *   <root>/queue/inbox/<id>.md                 submitted tickets waiting (the bytes as submitted)
 *   <root>/queue/processing/<id>@<token>.md    claimed tickets; `<token>` names the claim
 *   <root>/queue/processing/<id>@<token>.lease.json   the claim's lease (owner pid, host, heartbeat)
 *   <root>/queue/processing/.repo-<hash>.lock  the one claim a repository has running
 *   <root>/queue/done/<id>.md, failed/<id>.md  finished tickets
 *   <root>/queue/.tmp/                         unique temp files, linked or renamed into place
 *   <root>/data/tickets/<id>/                  a ticket's revisioned record (ArtifactStore, history/)
 *   <root>/data/tickets/<id>/ticket_answer.json  a read-only ticket's answer or findings (ADR 0057)
 *   <root>/data/spend.json                     the spend ledger, per local day and per ticket (ADR 0053)
 *   <root>/data/spend.lock                     held while the ledger is read and replaced
 *   <root>/cache/                              safe to delete: managed clones, worktrees
 *   <root>/cache/questions/<id>/               the empty folder a question ticket's read-only tools see
 *   <root>/logs/                               the daemon's logs
 */
export const DATA_ROOT_ENV = "DEVFLOW_HOME";
export const QUEUE_STATES = ["inbox", "processing", "done", "failed"] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** `$DEVFLOW_HOME` (absolute, or resolved against the cwd), else `~/.devflow`. */
export function dataRoot(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[DATA_ROOT_ENV]?.trim();
  if (named) return isAbsolute(named) ? named : resolve(named);
  return join(env.HOME?.trim() || homedir(), ".devflow");
}

export const queueDir = (root: string, state: QueueState): string => join(root, "queue", state);
export const queueTmpDir = (root: string): string => join(root, "queue", ".tmp");
export const dataDir = (root: string): string => join(root, "data");
export const cacheDir = (root: string): string => join(root, "cache");
export const logsDir = (root: string): string => join(root, "logs");
export const daemonConfigPath = (root: string): string => join(root, "config.json");

/** `data/spend.json`: the spend ledger (SpendLedger), replaced whole under `spendLedgerLockPath`. */
export const spendLedgerPath = (root: string): string => join(dataDir(root), "spend.json");
export const spendLedgerLockPath = (root: string): string => join(dataDir(root), "spend.lock");

/** `data/tickets/<id>/`: the ticket's record store. The id is checked first (it becomes a folder). */
export const ticketRecordDir = (root: string, id: string): string =>
  join(dataDir(root), "tickets", assertTaskId(id));

/** `cache/questions/<id>/`: an empty folder, all a question ticket's tools may look at (no repository). */
export const questionWorkspaceDir = (root: string, id: string): string =>
  join(cacheDir(root), "questions", assertTaskId(id));

/**
 * `cache/reads/<id>/`: the clone a read-only ticket of a git URL reads (ADR 0057), made fresh for
 * each run and removed after it; apart from the change flow's `cache/clones/`, whose clones hold tasks.
 */
export const readOnlyCloneDir = (root: string, id: string): string =>
  join(cacheDir(root), "reads", assertTaskId(id));

/** `queue/<state>/<id>.md` for inbox, done and failed. */
export const queuedTicketPath = (
  root: string,
  state: Exclude<QueueState, "processing">,
  id: string,
): string => join(queueDir(root, state), `${assertTaskId(id)}.md`);

/** `queue/processing/<id>@<token>.md`: a claimed ticket, named by its claim. */
export const claimedTicketPath = (root: string, id: string, token: string): string =>
  join(queueDir(root, "processing"), `${assertTaskId(id)}@${token}.md`);

/** `queue/processing/<id>@<token>.lease.json` */
export const leasePath = (root: string, id: string, token: string): string =>
  join(queueDir(root, "processing"), `${assertTaskId(id)}@${token}.lease.json`);

/**
 * `queue/processing/<id>.cancel.json`: `devflow cancel` of a running ticket asks here; the daemon
 * holding the claim notices at its heartbeat (ADR 0056). Per ticket, not per claim: a claim
 * recovered after a crash is cancelled by its next holder.
 */
export const cancelRequestPath = (root: string, id: string): string =>
  join(queueDir(root, "processing"), `${assertTaskId(id)}.cancel.json`);

/** `queue/processing/.repo-<key hash>.lock`: held while a ticket of that repository is claimed. */
export const repoClaimPath = (root: string, keyHash: string): string =>
  join(queueDir(root, "processing"), `.repo-${keyHash}.lock`);

/** Splits a processing/ entry name into id and claim token (null for anything else). */
export function parseClaimedName(name: string): { id: string; token: string } | null {
  const match = /^(.+)@([0-9a-f]{16})\.md$/.exec(name);
  // A stray file whose id is no ticket id is not a claim (path helpers would refuse the id, and one
  // such file stopped every recovery, so every daemon start).
  return match?.[1] && match[2] && isTaskId(match[1]) ? { id: match[1], token: match[2] } : null;
}

/**
 * Creates the whole tree (queue folders, data/, cache/, logs/, queue/.tmp) and the `.gitignore`
 * of `*`. Idempotent. A root that exists as a file is refused with the path named.
 */
export function ensureDataRoot(root: string): string {
  try {
    for (const state of QUEUE_STATES) mkdirSync(queueDir(root, state), { recursive: true });
    for (const dir of [queueTmpDir(root), join(dataDir(root), "tickets"), cacheDir(root), logsDir(root)])
      mkdirSync(dir, { recursive: true });
    const ignoreFile = join(root, ".gitignore");
    let current: string | undefined;
    try {
      current = readFileSync(ignoreFile, "utf8");
    } catch {
      current = undefined;
    }
    if (current !== "*\n") writeFileSync(ignoreFile, "*\n");
  } catch (error) {
    throw new DevflowError(
      "DATA_ROOT_UNUSABLE",
      `cannot create devflow's data root at ${root}: ${(error as Error).message} (set ${DATA_ROOT_ENV} to a writable folder)`,
      { cause: error },
    );
  }
  return root;
}
