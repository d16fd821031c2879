import { readdirSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processIsRunning } from "./process-group.js";

/**
 * The one owner of scratch dir names (a coder run's prompt file and CLI config home, a verification
 * run's own TMPDIR): `devflow-scratch-<pid>-…` under the OS temp dir, named after the devflow
 * process that made it, so a later start can tell a dead run's leftover from a live one's.
 */
const SCRATCH_PREFIX = "devflow-scratch-";
const OWNER = /^devflow-scratch-(\d+)-/;

/** A new scratch dir of this process; `kind` (e.g. `run`) only makes its name easier to read. */
export const newScratchDir = (kind?: string): Promise<string> =>
  mkdtemp(join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-${kind ? `${kind}-` : ""}`));

/** Scratch dirs under the OS temp dir whose devflow process is gone (the sweep and `devflow clean` remove them). */
export function deadScratchDirs(): string[] {
  let entries: string[];
  try {
    entries = readdirSync(tmpdir()).filter((e) => e.startsWith(SCRATCH_PREFIX));
  } catch {
    return [];
  }
  return entries
    .filter((entry) => {
      const owner = Number(OWNER.exec(entry)?.[1] ?? "0");
      return owner > 1 && !processIsRunning(owner);
    })
    .map((entry) => join(tmpdir(), entry));
}
