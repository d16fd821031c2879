import type { FileHandle } from "node:fs/promises";

/**
 * At most the first `limit` bytes of an open file, looping over short reads: a ticket over the cap
 * is refused by plan-lint from cap + 1 bytes, never read whole.
 */
export async function readFirstBytes(handle: FileHandle, limit: number): Promise<Uint8Array> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
