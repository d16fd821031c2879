import { createHash } from "node:crypto";
import { readdir, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { processIsGone, queueDir, queueTmpDir, repoClaimPath } from "../home/daemon-paths.js";
import { linkNew } from "./link-new.js";

/**
 * Same-repository tickets never run at once, across processes: a claim of a ticket with a
 * repository first creates `processing/.repo-<hash of key>.lock` with link(2) (EEXIST = busy), then
 * moves the ticket. The file names the claim token that holds it; finish and recovery remove it only
 * when it is theirs. The key is the canonical real path (or the redacted URL), so aliases of one
 * repository share one lock (junco #113).
 */
interface RepoClaimFile {
  token: string;
  ticket_id: string;
  pid: number;
  host: string;
  at: string;
}

export const repoKeyHash = (key: string): string =>
  createHash("sha256").update(key).digest("hex").slice(0, 32);

export async function takeRepoClaim(root: string, key: string, id: string, token: string): Promise<boolean> {
  const body: RepoClaimFile = {
    token,
    ticket_id: id,
    pid: process.pid,
    host: hostname(),
    at: new Date().toISOString(),
  };
  return linkNew(queueTmpDir(root), repoClaimPath(root, repoKeyHash(key)), JSON.stringify(body));
}

/** Removes the repository's claim if `token` holds it (a claim never frees another's). */
export async function releaseRepoClaim(root: string, key: string, token: string): Promise<void> {
  const path = repoClaimPath(root, repoKeyHash(key));
  const held = await readClaim(path);
  if (held?.token === token) await unlink(path).catch(() => undefined);
}

/**
 * Removes repository claims left by a claimer that died between taking the claim and moving the
 * ticket (or after moving it back): no claimed ticket carries its token, and its owner is gone or
 * it is older than `staleMs`.
 */
export async function sweepRepoClaims(root: string, now: Date, staleMs: number): Promise<void> {
  const dir = queueDir(root, "processing");
  const names = await readdir(dir).catch(() => [] as string[]);
  const tokens = new Set(names.map((n) => /@([0-9a-f]{16})\.md$/.exec(n)?.[1]).filter(Boolean));
  for (const name of names.filter((n) => /^\.repo-[0-9a-f]+\.lock$/.test(n))) {
    const path = join(dir, name);
    const held = await readClaim(path);
    if (held && tokens.has(held.token)) continue;
    const age = now.getTime() - ((await stat(path).catch(() => null))?.mtimeMs ?? now.getTime());
    const ownerGone = held !== null && processIsGone({ pid: held.pid, host: held.host });
    if (ownerGone || age > staleMs) await unlink(path).catch(() => undefined);
  }
}

async function readClaim(path: string): Promise<RepoClaimFile | null> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as RepoClaimFile;
  } catch {
    return null;
  }
}
