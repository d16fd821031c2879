import { spawnSync } from "node:child_process";

/**
 * The xattr namespace overlayfs keeps its markers in: `trusted` when mounted as root, `user` when
 * mounted inside a user namespace with `-o userxattr` (ADR 0068). Reading the other one would see
 * no marker at all (and a coder as root could plant `user.overlay.opaque` itself), so the caller
 * must say which.
 */
export type OverlayXattrs = "trusted" | "user";

/**
 * Which of `dirs` (relative to `upper`, an overlay's upper layer, as bytes: a name need not be UTF-8)
 * are opaque: made again after the run removed the lower directory, so they hide everything the
 * lower layer held there (ADR 0040). Returned byte-exact, as latin1 strings (`binaryName`).
 * overlayfs marks them with the `<xattrs>.overlay.opaque` xattr, which node cannot read; GNU tar
 * can (`trusted.*` as root, `user.*` as the owner), so one `tar --xattrs --no-recursion` over the candidates is parsed here. Throws
 * when tar cannot say (not installed, refused): the caller must not read that as "none".
 */
export function opaqueDirs(upper: string, dirs: readonly Buffer[], xattrs: OverlayXattrs): Set<string> {
  if (dirs.length === 0) return new Set();
  const r = spawnSync(
    "tar",
    [
      "--xattrs",
      `--xattrs-include=${xattrs}.overlay.opaque`,
      "--no-recursion",
      "--null",
      "--verbatim-files-from",
      "-C",
      upper,
      "-cf",
      "-",
      "-T",
      "-",
    ],
    { input: Buffer.concat(dirs.flatMap((d) => [d, NUL])), maxBuffer: 64 * 1024 * 1024, timeout: 30_000 },
  );
  if (r.status !== 0 || !r.stdout)
    throw new Error(
      `tar could not read the overlay's directory markers (${r.error?.message ?? r.stderr?.toString().trim() ?? `exit ${r.status}`})`,
    );
  return opaqueInTar(r.stdout, xattrs);
}

const NUL = Buffer.from([0]);

/**
 * A name's bytes as a latin1 string (one char per byte): what `opaqueDirs` returns, so a name that
 * is not UTF-8 stays exact; `Buffer.from(name, "latin1")` gives the bytes back.
 */
export const binaryName = (bytes: Buffer): string => bytes.toString("latin1");

/**
 * The records of a pax extended header (`<length> <key>=<value>\n`, length in bytes, the value
 * any bytes, newlines included), by key, values as latin1 strings. Session-25 review: a line-based
 * read cut a path holding a newline short, so the marker was credited to another name.
 */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = Number.parseInt(data.toString("latin1", at, space), 10);
    if (!Number.isFinite(length) || length <= space - at) break;
    const record = data.toString("latin1", space + 1, at + length - 1); // without the final "\n"
    const eq = record.indexOf("=");
    if (eq !== -1) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return out;
}

/**
 * The entries of a tar stream whose pax header carries the opaque xattr (trailing "/" dropped),
 * byte-exact as latin1 strings (`binaryName`).
 */
export function opaqueInTar(tar: Buffer, xattrs: OverlayXattrs): Set<string> {
  const marker = `SCHILY.xattr.${xattrs}.overlay.opaque`;
  const out = new Set<string>();
  let offset = 0;
  let opaque = false;
  let paxPath: string | null = null;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(field(header, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + 512;
    offset = dataStart + Math.ceil(size / 512) * 512;
    if (type === "x") {
      const records = paxRecords(tar.subarray(dataStart, dataStart + size));
      opaque = records.get(marker) === "y";
      paxPath = records.get("path") ?? null;
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    if (opaque) out.add(name.replace(/\/+$/, ""));
    opaque = false;
    paxPath = null;
  }
  return out;
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString("latin1");
}
