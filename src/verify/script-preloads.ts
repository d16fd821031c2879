import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Files of the checkout that a pinned test script preloads into node (`--require`, `-r`,
 * `--import`, `--loader`, `--experimental-loader`): `node --require=./scripts/setup.cjs --test`.
 * They are part of the base's test setup, like the runner binaries (ADR 0022), and they run in the
 * runner process before devflow's own preloads: a change to one could read the assertion ledger's
 * key (ADR 0048) or rewrite what the runner reports. Verification pins their bytes on base, and a
 * run over an attempt that changed one cannot be checked. So is every file of the checkout such a
 * preload loads in turn (`require("./helpers.cjs")`, `import`, `module.register`), followed like node
 * resolves it: the preload's closure (`preloadClosure`).
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

/** Module specifiers a file names literally: require/import/import()/export from/module.register. */
const LITERAL_SPECIFIERS = [
  /\brequire\s*\(\s*(['"`])([^'"`$]+)\1\s*\)/g,
  /\bimport\s*\(\s*(['"`])([^'"`$]+)\1/g,
  /\b(?:import|export)\s+(?:[^'";]*?\s+from\s+)?(['"])([^'"]+)\1/g,
  /\bregister\s*\(\s*(['"`])([^'"`$]+)\1/g,
];
/** A require or import() whose argument is not a plain string: what it loads cannot be read from the text. */
const COMPUTED_SPECIFIER = /\b(?:require|import)\s*\(\s*(?!(['"])[^'"]*\1\s*[,)]|`[^`$]*`\s*[,)])/;
/** Paths built from the file's own place, the usual computed form: join(__dirname, "a", "b"), new URL("./a", import.meta.url). */
const OWN_DIR_PATHS = [
  /\b(?:join|resolve)\s*\(\s*__dirname\s*((?:,\s*(['"])[^'"]*\2\s*)+)\)/g,
  /__dirname\s*\+\s*(['"])([^'"]*)\1/g,
  /\bnew\s+URL\s*\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g,
];
/** Files a preload may load when it computes a path: scripts and data node can require. */
const LOADABLE = /\.(?:[cm]?js|[cm]?ts|json|node)$/;

/** The relative paths `text` builds from its own directory (see OWN_DIR_PATHS). */
function ownDirPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(OWN_DIR_PATHS[0] as RegExp))
    out.push(`./${[...(m[1] ?? "").matchAll(/(['"])([^'"]*)\1/g)].map((a) => a[2]).join("/")}`);
  for (const m of text.matchAll(OWN_DIR_PATHS[1] as RegExp))
    out.push(`.${(m[2] ?? "").startsWith("/") ? "" : "/"}${m[2]}`);
  for (const m of text.matchAll(OWN_DIR_PATHS[2] as RegExp)) out.push(m[2] ?? "");
  return out.map((p) => p.replace(/\/{2,}/g, "/"));
}

/** The file of the checkout `spec` (named in `from`) loads, resolved like node; null: a package, a builtin, nothing. */
function resolveLocal(spec: string, from: string, cwd: string): string | null {
  const local =
    spec.startsWith("./") || spec.startsWith("../") || spec.startsWith("/") || spec.startsWith("file://");
  if (!local && !spec.startsWith("#")) return null;
  let found: string | null = null;
  if (local) {
    const raw = spec.startsWith("file://") ? fileURLToPath(spec) : resolve(dirname(from), spec);
    try {
      if (statSync(raw).isFile()) found = raw;
    } catch {}
  }
  if (found === null)
    try {
      found = createRequire(from).resolve(spec);
    } catch {
      return null;
    }
  const rel = relative(cwd, found);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel) || rel.split(sep).includes("node_modules"))
    return null;
  return found;
}

/** The loadable files of `dir` itself, for a preload that computes what it loads. */
function loadableFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && LOADABLE.test(e.name))
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/**
 * The script's checkout preloads and every file of the checkout they load in turn, transitively
 * (`/`-separated, relative to `cwd`): what runs in the runner before devflow's own preloads.
 * Specifiers are read from the text: string literals, and paths built from the file's own place
 * (`join(__dirname, "x")`, `new URL("./x", import.meta.url)`); a file that computes a path any other
 * way brings in every loadable file beside it, and no more (ADR 0048 says what that leaves).
 */
export function preloadClosure(script: string, cwd: string): string[] {
  const seen = new Set<string>();
  const queue = checkoutPreloads(script, cwd).map((p) => join(cwd, p));
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const rel = relative(cwd, file).split(sep).join("/");
    if (seen.has(rel)) continue;
    seen.add(rel);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    if (file.endsWith(".json") || file.endsWith(".node")) continue;
    for (const re of LITERAL_SPECIFIERS)
      for (const m of text.matchAll(re)) {
        const found = resolveLocal(m[2] ?? "", file, cwd);
        if (found !== null) queue.push(found);
      }
    for (const spec of ownDirPaths(text)) {
      const found = resolveLocal(spec, file, cwd);
      if (found !== null) queue.push(found);
    }
    // Any other computed path: at least the files beside it (`require("./" + name)`).
    // A path built from the file's own place is read above; only other computed paths count.
    const rest = OWN_DIR_PATHS.reduce((t, re) => t.replace(re, '"x"'), text);
    if (COMPUTED_SPECIFIER.test(rest))
      for (const f of loadableFiles(dirname(file))) if (resolveLocal(f, file, cwd) !== null) queue.push(f);
  }
  return [...seen];
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

/** The script's checkout preloads and the files they load, with their bytes' hash in `cwd` (the base checkout). */
export function pinPreloads(script: string, cwd: string): PinnedPreload[] {
  const paths = [...new Set([...checkoutPreloads(script, cwd), ...preloadClosure(script, cwd)])];
  return paths.map((path) => ({ path, sha256: fileHash(cwd, path) }));
}

/**
 * Preloads of `script` (and files they load) whose bytes in `cwd` differ from base: a pinned file
 * changed, added or removed, or a preload that resolves to another file now than on base (`-r
 * ./test/setup` finding a `test/setup.js` base did not have, a helper it now requires).
 */
export function changedPreloads(
  pinned: readonly PinnedPreload[] | undefined,
  script: string,
  cwd: string,
): string[] {
  const base = new Map((pinned ?? []).map((p) => [p.path, p.sha256]));
  const changed = (pinned ?? []).filter((p) => fileHash(cwd, p.path) !== p.sha256).map((p) => p.path);
  for (const path of [...checkoutPreloads(script, cwd), ...preloadClosure(script, cwd)])
    if (!base.has(path) && fileHash(cwd, path) !== null) changed.push(path);
  return [...new Set(changed)];
}
