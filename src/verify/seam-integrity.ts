import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { SeamIntegrityEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import { nameList } from "../util/markdown.js";
import { startEnvelope } from "./envelope.js";

/** Repo-relative seam path → sha256 of its content, or null when it did not exist. */
export type SeamFileHashes = Record<string, string | null>;

/**
 * Fingerprints the seam's files (taken once the seam is confirmed red, before any coder runs).
 * A directory hashes as the sorted list of its files with their hashes, so adding, editing or
 * deleting any file under it changes the fingerprint.
 */
export async function hashSeamFiles(worktree: string, files: readonly string[]): Promise<SeamFileHashes> {
  const out: SeamFileHashes = {};
  for (const file of files) out[file] = await hashPath(resolveInside(worktree, file));
  return out;
}

export interface SeamIntegrityInput {
  worktree: string;
  seamFileHashes: SeamFileHashes;
  /** Seam test code that could not be fingerprinted (from the contract): named in a pass. */
  unprotected?: readonly string[];
  /** Evidence the scope names exactly, not fingerprinted (from the contract): named in a pass when changed. */
  scopeNamed?: readonly string[];
  /** Every file the attempt changed since base. */
  changedFiles?: readonly string[];
  attemptId: string;
}

/** Fails when any seam file changed since it was fingerprinted: a coder must fix code, not the test. */
export async function runSeamIntegrityVerifier(input: SeamIntegrityInput): Promise<SeamIntegrityEnvelope> {
  const env = startEnvelope("seam_integrity", input.attemptId);
  const files = Object.keys(input.seamFileHashes);
  let now: SeamFileHashes;
  try {
    now = await hashSeamFiles(input.worktree, files);
  } catch (err) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: `could not fingerprint the seam files: ${(err as Error).message}`,
      evidence_refs: files,
      native_payload: { files },
    });
  }

  const edited: string[] = [];
  const deleted: string[] = [];
  const created: string[] = [];
  for (const file of files) {
    const before = input.seamFileHashes[file] ?? null;
    const after = now[file] ?? null;
    if (before === after) continue;
    if (after === null) deleted.push(file);
    else if (before === null) created.push(file);
    else edited.push(file);
  }

  const changed = new Set(input.changedFiles ?? []);
  const scopeNamedChanged = (input.scopeNamed ?? []).filter((f) => changed.has(f));
  const problems = [
    ...edited.map((f) => `${f} (edited)`),
    ...deleted.map((f) => `${f} (deleted)`),
    ...created.map((f) => `${f} (created; it did not exist when the seam was recorded)`),
  ];
  return env.finish({
    overall_result: problems.length === 0 ? "pass" : "fail",
    green_condition_alignment: "not_applicable",
    summary:
      files.length === 0
        ? "the seam has no files to protect"
        : problems.length === 0
          ? unchangedSummary(input.seamFileHashes)
          : `seam file(s) changed by the attempt, so a green seam proves nothing: ${nameList(problems)}`,
    evidence_refs: files,
    native_payload: {
      expected: input.seamFileHashes,
      actual: now,
      edited,
      deleted,
      created,
      ...(input.unprotected?.length ? { unprotected: [...input.unprotected] } : {}),
      ...(scopeNamedChanged.length > 0 ? { scope_named_changed: scopeNamedChanged } : {}),
    },
  });
}

/** "all 3 seam file(s) are unchanged", and how many paths pinned absent (a conftest.py pytest would load) still are. */
function unchangedSummary(hashes: SeamFileHashes): string {
  const absent = Object.values(hashes).filter((h) => h === null).length;
  const present = Object.keys(hashes).length - absent;
  const files = `all ${present} seam file(s) are unchanged`;
  return absent === 0 ? files : `${files}, and the ${absent} path(s) pinned absent are still absent`;
}

function resolveInside(worktree: string, file: string): string {
  const full = resolve(worktree, file);
  const rel = relative(resolve(worktree), full);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new Error(
      `seam file "${file}" is outside the worktree ${worktree}; seam files must be repo-relative`,
    );
  }
  return full;
}

async function hashPath(full: string): Promise<string | null> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(full);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  if (!info.isDirectory()) return sha256(await readFile(full));
  const entries = (await readdir(full)).sort();
  const lines: string[] = [];
  for (const name of entries) lines.push(`${name}\0${(await hashPath(join(full, name))) ?? "-"}`);
  return sha256(`dir\0${lines.join("\n")}`);
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
