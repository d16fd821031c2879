import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join, relative, sep } from "node:path";

/**
 * Files of the checkout that a pinned test script preloads into node (`--require`, `-r`,
 * `--import`, `--loader`, `--experimental-loader`): `node --require=./scripts/setup.cjs --test`.
 * They are part of the base's test setup, like the runner binaries (ADR 0022), and they run in the
 * runner process before devflow's own preloads: a change to one could read the assertion ledger's
 * key (ADR 0048) or rewrite what the runner reports. Verification pins their bytes on base, and a
 * run over an attempt that changed one cannot be checked.
 */

const PRELOAD_FLAGS = new Set([
  "--require",
  "-r",
  "--import",
  "--loader",
  "--experimental-loader",
  // node:test loads a reporter module in the runner process too (it holds the ledger key).
  "--test-reporter",
]);
/** Flags whose value node resolves like require() (an extension or an index file may be left out). */
const REQUIRE_FLAGS = new Set(["--require", "-r"]);

export interface PinnedPreload {
  /** Relative to the checkout, `/`-separated. */
  path: string;
  /** null: absent on base. */
  sha256: string | null;
}

/** Words of a shell command line: whitespace-separated, with simple '…' and "…" quoting. */
function words(script: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of script.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
  return out;
}

/** The values of the script's preload flags (`--require=x`, `--require x`, `-r x`, …). */
export function preloadArguments(script: string): string[] {
  return preloadFlags(script).map((p) => p.value);
}

function preloadFlags(script: string): { flag: string; value: string }[] {
  const ws = words(script);
  const found: { flag: string; value: string }[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i] ?? "";
    const eq = w.indexOf("=");
    if (eq > 0 && PRELOAD_FLAGS.has(w.slice(0, eq)))
      found.push({ flag: w.slice(0, eq), value: w.slice(eq + 1) });
    else if (PRELOAD_FLAGS.has(w) && i + 1 < ws.length) found.push({ flag: w, value: ws[++i] ?? "" });
  }
  return found;
}

/**
 * The preload arguments that name a file of the checkout in `cwd` (a path, not a package name:
 * packages live in node_modules, which verification does not let the attempt change).
 */
export function checkoutPreloads(script: string, cwd: string): string[] {
  const paths: string[] = [];
  for (const { flag, value: given } of preloadFlags(script)) {
    // `-r ./test/setup` loads test/setup.js (or test/setup/index.js): what node loads is pinned.
    const value = REQUIRE_FLAGS.has(flag) ? requireTarget(given, cwd) : given;
    const raw = value.startsWith("file://") ? new URL(value).pathname : value;
    const isPath =
      raw.startsWith("./") ||
      raw.startsWith("../") ||
      isAbsolute(raw) ||
      (raw.includes("/") === false && /\.[cm]?[jt]s$/.test(raw));
    if (!isPath) continue;
    const rel = relative(cwd, isAbsolute(raw) ? raw : join(cwd, raw));
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
    paths.push(rel.split(sep).join("/"));
  }
  return [...new Set(paths)];
}

/** The file a `--require` value names, resolved from `cwd` like node does; the value when nothing resolves. */
function requireTarget(value: string, cwd: string): string {
  if (!(value.startsWith("./") || value.startsWith("../") || isAbsolute(value))) return value;
  try {
    return createRequire(join(cwd, "noop.js")).resolve(value);
  } catch {
    return value;
  }
}

function fileHash(cwd: string, path: string): string | null {
  const file = join(cwd, path);
  try {
    if (!statSync(file).isFile()) return null;
    // A symlink is followed: what node loads is the target's bytes.
    return createHash("sha256")
      .update(readFileSync(realpathSync(file)))
      .digest("hex");
  } catch {
    return null;
  }
}

/** The script's checkout preloads with their bytes' hash in `cwd` (the base checkout). */
export function pinPreloads(script: string, cwd: string): PinnedPreload[] {
  return checkoutPreloads(script, cwd).map((path) => ({ path, sha256: fileHash(cwd, path) }));
}

/**
 * Preloads of `script` whose bytes in `cwd` differ from base: a pinned file changed, added or
 * removed, or a preload that resolves to another file now than on base (`-r ./test/setup` finding a
 * `test/setup.js` base did not have).
 */
export function changedPreloads(
  pinned: readonly PinnedPreload[] | undefined,
  script: string,
  cwd: string,
): string[] {
  const base = new Map((pinned ?? []).map((p) => [p.path, p.sha256]));
  const changed = (pinned ?? []).filter((p) => fileHash(cwd, p.path) !== p.sha256).map((p) => p.path);
  for (const path of checkoutPreloads(script, cwd))
    if (!base.has(path) && fileHash(cwd, path) !== null) changed.push(path);
  return [...new Set(changed)];
}
