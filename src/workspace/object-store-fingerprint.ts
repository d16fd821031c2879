import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { runGit } from "./git.js";

/**
 * The user's object store (`<common git dir>/objects`) as a cheap fingerprint (review rows 3-5):
 * loose objects and pack files by size and mtime (`s:<size>:<mtime>`), `info/*` (alternates,
 * commit-graph, packs) by content (`c:<sha256>`). Hashing every object would cost as much as
 * reading the repository; a stat is enough to know which ones to look at again afterwards.
 */
export type ObjectStoreFingerprint = Record<string, string>;

const LOOSE_DIR = /^[0-9a-f]{2}$/;

export function fingerprintObjectStore(objectsDir: string): ObjectStoreFingerprint {
  const out: ObjectStoreFingerprint = {};
  const stat = (rel: string) => {
    try {
      const s = lstatSync(join(objectsDir, rel));
      if (!s.isDirectory()) out[rel] = `s:${s.size}:${s.mtimeMs}:${s.mode.toString(8)}`;
    } catch {
      // gone while listing: absent
    }
  };
  for (const entry of list(objectsDir)) {
    if (LOOSE_DIR.test(entry) || entry === "pack") {
      for (const name of list(join(objectsDir, entry))) stat(`${entry}/${name}`);
    } else if (entry === "info") {
      hashContents(objectsDir, "info", out);
    } else stat(entry);
  }
  return out;
}

/**
 * What changed in the object store, one line per change. A stat that differs is only a candidate:
 * a loose object is re-hashed (git freshens an object's mtime when it would write it again: not a
 * change if it still hashes to its name), a pack is checked with `git verify-pack` (devflow's own
 * completion commit adds one: it passes). A removed object or pack, an object that no longer hashes
 * to its name, a pack that fails verification and any change under `info/` are findings.
 */
export async function objectStoreChanges(
  objectsDir: string,
  before: ObjectStoreFingerprint,
  after: ObjectStoreFingerprint,
): Promise<string[]> {
  const changes: string[] = [];
  const packsToCheck = new Set<string>();
  const others: string[] = [];
  for (const rel of Object.keys(before)) if (!(rel in after)) changes.push(`.git/objects/${rel} removed`);
  for (const [rel, now] of Object.entries(after)) {
    const was = before[rel];
    if (was === now) continue;
    const what = was === undefined ? "added" : "changed";
    if (rel.startsWith("info/")) changes.push(`.git/objects/${rel} ${what}`);
    else if (LOOSE_DIR.test(rel.slice(0, 2)) && rel[2] === "/") {
      if (!looseObjectIsIntact(objectsDir, rel))
        changes.push(`.git/objects/${rel} ${what}: its content does not hash to its name`);
    } else if (/^pack\/pack-[0-9a-f]+\.(pack|idx)$/.test(rel))
      packsToCheck.add(rel.replace(/\.(pack|idx)$/, ""));
    else others.push(rel);
  }
  const intactPacks = new Set<string>();
  for (const base of [...packsToCheck].sort()) {
    if (await packIsIntact(objectsDir, base)) intactPacks.add(base);
    else
      changes.push(
        `.git/objects/${base}.pack ${before[`${base}.pack`] ? "changed" : "added"}: git verify-pack fails`,
      );
  }
  // A pack's side files (.rev, .keep, ...) come with the pack: fine next to a verified new pack.
  for (const rel of others) {
    const base = rel.replace(/\.[a-z]+$/, "");
    if (!(intactPacks.has(base) && before[`${base}.pack`] === undefined))
      changes.push(`.git/objects/${rel} ${before[rel] === undefined ? "added" : "changed"}`);
  }
  return changes;
}

/** Whether a loose object's inflated content hashes to its name (sha1, or sha256 for 64-digit names). */
function looseObjectIsIntact(objectsDir: string, rel: string): boolean {
  const name = rel.replace("/", "");
  try {
    const content = inflateSync(readFileSync(join(objectsDir, rel)));
    const algorithm = name.length === 64 ? "sha256" : "sha1";
    return createHash(algorithm).update(content).digest("hex") === name;
  } catch {
    return false;
  }
}

async function packIsIntact(objectsDir: string, base: string): Promise<boolean> {
  try {
    await runGit(objectsDir, ["verify-pack", join(objectsDir, `${base}.idx`)], {
      env: { GIT_DIR: join(objectsDir, "..") },
    });
    return true;
  } catch {
    return false;
  }
}

function hashContents(root: string, rel: string, out: ObjectStoreFingerprint): void {
  const full = join(root, rel);
  try {
    const s = lstatSync(full);
    if (s.isDirectory()) for (const entry of list(full)) hashContents(root, `${rel}/${entry}`, out);
    else out[rel] = `c:${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
  } catch {
    // gone while listing
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
