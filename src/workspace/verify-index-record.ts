import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import type { OwnIndex } from "./types.js";

/**
 * The index devflow's last reset of a verification checkout wrote, as a hash and a time (ADR 0039).
 * Kept outside the checkout's reach: an idle checkout's index is trusted only if it still hashes
 * to this.
 */
export const VerifyIndexRecord = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The index file's modification time right after the reset (git's racy-entry rule needs it). */
  mtime_ms: z.number().nonnegative(),
});
export type VerifyIndexRecord = z.infer<typeof VerifyIndexRecord>;

export const sha256Of = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** Written atomically (a crash leaves the old record or the new one, never half of one). */
export function writeIndexRecord(path: string, own: { bytes: Buffer; mtimeMs: number }): void {
  mkdirSync(dirname(path), { recursive: true });
  const record: VerifyIndexRecord = { sha256: sha256Of(own.bytes), mtime_ms: own.mtimeMs };
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  renameSync(tmp, path);
}

/** The record, or null when it is missing or not one (then nothing is trusted). */
export function readIndexRecord(path: string): VerifyIndexRecord | null {
  try {
    const parsed = VerifyIndexRecord.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** An index file as devflow keeps it: its bytes and its modification time, read right after git wrote it. */
export function readOwnIndex(path: string): OwnIndex {
  return { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs };
}

/**
 * Gives the index file at `path` its recorded time, rounded down: entries written in the same
 * instant as the index stay racy, so git compares their content instead of trusting their stat data.
 */
export function backdateIndex(path: string, mtimeMs: number): void {
  const mtime = new Date(Math.floor(mtimeMs) - 1);
  utimesSync(path, mtime, mtime);
}
