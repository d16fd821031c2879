import { spawnSync } from "node:child_process";

/**
 * The xattr namespace overlayfs keeps its markers in: `trusted` when mounted as root, `user` when
 * mounted inside a user namespace with `-o userxattr` (ADR 0068). Reading the other one would see
 * no marker at all (and a coder as root could plant `user.overlay.opaque` itself), so the caller
 * must say which.
 */
export type OverlayXattrs = "trusted" | "user";

/**
 * Which of `dirs` (relative to `upper`, an overlay's upper layer) are opaque: made again after the
 * run removed the lower directory, so they hide everything the lower layer held there (ADR 0040).
 * overlayfs marks them with the `<xattrs>.overlay.opaque` xattr, which node cannot read; GNU tar
 * can (`trusted.*` as root, `user.*` as the owner), so one `tar --xattrs --no-recursion` over the candidates is parsed here. Throws
 * when tar cannot say (not installed, refused): the caller must not read that as "none".
 */
export function opaqueDirs(upper: string, dirs: readonly string[], xattrs: OverlayXattrs): Set<string> {
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
    { input: dirs.map((d) => `${d}\0`).join(""), maxBuffer: 64 * 1024 * 1024, timeout: 30_000 },
  );
  if (r.status !== 0 || !r.stdout)
    throw new Error(
      `tar could not read the overlay's directory markers (${r.error?.message ?? r.stderr?.toString().trim() ?? `exit ${r.status}`})`,
    );
  return opaqueInTar(r.stdout, xattrs);
}

/** The entries of a tar stream whose pax header carries the opaque xattr (trailing "/" dropped). */
export function opaqueInTar(tar: Buffer, xattrs: OverlayXattrs): Set<string> {
  const marker = ` SCHILY.xattr.${xattrs}.overlay.opaque=y\n`;
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
      const records = tar.subarray(dataStart, dataStart + size).toString("utf8");
      opaque = records.includes(marker);
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(records)?.[1] ?? null;
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
  return raw.subarray(0, end === -1 ? length : end).toString("utf8");
}
