import { randomBytes } from "node:crypto";
import { link, open, unlink } from "node:fs/promises";
import { basename, join } from "node:path";

/**
 * Puts `content` at `target` only if nothing is there, atomically: the bytes go to a unique temp
 * file in `tmpDir` (same filesystem), synced, then hard-linked to `target`. link(2) fails with
 * EEXIST instead of replacing, so two writers can never both "win" and a reader never sees a half
 * file: no check-then-act (junco's submit race, reference §4 #144). Returns false when `target`
 * already existed.
 */
export async function linkNew(
  tmpDir: string,
  target: string,
  content: string | Uint8Array,
): Promise<boolean> {
  const tmp = join(tmpDir, `${basename(target)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(tmp, "wx", 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}
