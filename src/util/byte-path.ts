/**
 * Paths as bytes, for walks that must name every file exactly: a file name on Linux is any bytes
 * but "/" and NUL, and one that is not UTF-8, decoded to a string, becomes U+FFFD and names no
 * file (session-25 review, tracked-file-with-a-non-utf8-name-attack25).
 */
const SLASH = Buffer.from("/");

/** `rel` + "/" + `name` (`name` alone when `rel` is empty). */
export const childPath = (rel: Buffer, name: Buffer): Buffer =>
  rel.length === 0 ? name : Buffer.concat([rel, SLASH, name]);

/** `base`/`rel` as a byte path (`base` itself when `rel` is empty). */
export const under = (base: string, rel: Buffer): Buffer => childPath(Buffer.from(base), rel);
