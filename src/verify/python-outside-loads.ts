import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { baseEnv } from "../process/env.js";
import type { OpenTrace } from "../process/open-trace.js";
import { runProcess } from "../process/run-process.js";
import { helperInterpreter, stdlibModules } from "./python-shadows.js";
import { insideCheckout, openedInside, reached, realInside } from "./seam-opened-files.js";
import { list } from "./seam-shared-process.js";

/** Reads the names a set of Python files import (ast only: nothing of them runs). */
const IMPORTS_SCRIPT = fileURLToPath(new URL("./python-imports.py", import.meta.url));

/** A Python module file: source or an extension (a `.pyc` the attempt adds is refused by scope). */
export const PYTHON_MODULE_FILE = /\.(?:py|so|pyd)$/;

/**
 * New Python modules that a seam run loaded although no file of the repository it loaded imports
 * them by name (ADR 0076, part 2). Code outside the checkout tries optional modules by name: the
 * standard library's `copy` tries `org.python.core` (for Jython), pytest-benchmark tries
 * `__pypy__`. With the checkout first on `sys.path`, a new root `org.py` ran in the seam's process
 * when `copy` was imported, replaced the function under test, and the seam passed with the program
 * unchanged (review of stop 39, real pytest). Names cannot close this (what outside code *tries* is
 * not a list anyone keeps); the trace can: a module the attempt added that the run opened must be
 * imported by name by a file of the repository the same run opened (the program or its tests),
 * else something outside loaded it and it is a finding. A new module asks only once something the
 * attempt did not add asked for it (two new modules cannot vouch for each other).
 *
 * What it does not see: an import by a computed name (`import_module(f"plugins.{name}")`) reads as
 * none (a correct fix loading its new module that way is refused, with this finding); an import in
 * code that never runs (`if False: import org`) reads as one. Matching is by a dotted tail of the
 * module's path (`pkg/helpers.py` is imported by `helpers`, `pkg.helpers` or `from pkg import helpers`),
 * as devflow does not know every folder the run put on `sys.path`; a tail starting with a standard
 * library name does not count (`import pdb` asks for the standard library's, not `src/pdb.py`).
 */
export async function outsideNamedLoads(input: {
  checkoutDir: string;
  trace: OpenTrace | undefined;
  /** Python module files the attempt added (not in base's tree). */
  addedModules: readonly string[];
  /** The paths the attempt changed that are symlinks now (added or pointed elsewhere). */
  changedLinks?: readonly string[];
  /** The seam's and the canary's files: not the attempt's. */
  ownFiles: readonly string[];
  /** The seam's command: its interpreter parses the files. */
  seamCommand: string;
  /** Folders besides the checkout the attempt could write (see `helperInterpreter`). */
  attemptDirs?: readonly string[];
}): Promise<string | null> {
  const { trace } = input;
  if (trace?.kind !== "traced" || input.addedModules.length === 0) return null;
  const opened = openedInside(input.checkoutDir, trace.files);
  const own = new Set(input.ownFiles);
  // Opened by its own path or, for a link, by the file it leads to (the trace holds the kernel's
  // path: review, stop 40, an `org.py` link to `org_shim.txt` was opened as the latter).
  // A changed link through which the run loaded Python is a module by the link's name, which is
  // the name Python asked for (second review, stop 40: a folder link `org -> x/slug` was loaded as
  // `x/slug/__init__.py`, whose tail `slug` the seam's test imports, and the lane completed).
  const loaded = [
    ...new Set([
      ...input.addedModules.filter((f) => !own.has(f) && reached(input.checkoutDir, f, opened)),
      ...(input.changedLinks ?? []).filter(
        (link) => !own.has(link) && loadsPython(input.checkoutDir, link, opened),
      ),
    ]),
  ].sort();
  if (loaded.length === 0) return null;
  const importers = [...opened].filter((f) => f.endsWith(".py")).sort();
  const interpreter = helperInterpreter(input.seamCommand, {
    checkout: input.checkoutDir,
    attemptDirs: input.attemptDirs ?? [],
  });
  const [imports, stdlib] =
    interpreter === null
      ? [{ kind: "failed", reason: "no python3 out of the attempt's reach" } as const, new Set<string>()]
      : await Promise.all([importsOf(interpreter, input.checkoutDir, importers), stdlibModules(interpreter)]);
  if (imports.kind === "failed")
    return `the seam's run loaded new Python module(s) (${list(loaded, 5)}) and what its files import could not be read (${imports.reason})`;
  // `import pdb` in the project asks for the standard library's pdb, not a new `src/pdb.py`.
  const namesOf = new Map(
    loaded.map((m) => [m, moduleNames(m).filter((name) => !stdlib.has(name.split(".")[0] ?? name))] as const),
  );
  // A file asks for a module only when it was opened first (third review, stop 40: `org.py`, loaded
  // by `copy`, read a base file holding `import org` as text, which then vouched for it).
  const rank = openRanks(input.checkoutDir, trace.firstOpened);
  const asks = (file: string, module: string) =>
    file !== module &&
    (rank === null ||
      (rank(file) ?? Number.POSITIVE_INFINITY) < (rank(module) ?? Number.POSITIVE_INFINITY)) &&
    (namesOf.get(module) ?? []).some((n) => imports.byFile.get(file)?.has(n));
  // Who asks: the opened files the attempt did not add, then, round by round, the new modules they
  // asked for. Review, stop 40: two new modules importing each other (`org.py` ↔ `orgpeer.py`)
  // each counted as the other's asker, and the lane completed.
  const added = new Set(input.addedModules);
  const asked = new Set<string>();
  let askers = importers.filter((file) => !added.has(file));
  while (askers.length > 0) {
    const newlyAsked = loaded.filter((m) => !asked.has(m) && askers.some((file) => asks(file, m)));
    for (const m of newlyAsked) asked.add(m);
    askers = newlyAsked;
  }
  const unasked = loaded.filter((m) => !asked.has(m));
  if (unasked.length === 0) return null;
  return (
    `the seam's run loaded new Python module(s) that no file of the repository it loaded imports by name (${list(unasked, 5)}): ` +
    "code outside the repository (the standard library or an installed package trying an optional module) loaded them, " +
    "so they ran in the seam's process without the program asking for them; import such a module from the code that uses it, " +
    "or give it a name nothing outside tries"
  );
}

/**
 * When a checkout path (a file, or a link to a file or folder) was first opened: the rank of the
 * first open of it, its target or anything below that; null when the trace keeps no order.
 */
function openRanks(checkoutDir: string, firstOpened: readonly string[] | undefined) {
  if (firstOpened === undefined) return null;
  const ranks = new Map<string, number>();
  const relative = insideCheckout(checkoutDir);
  for (const [i, abs] of firstOpened.entries())
    for (const rel of relative(abs)) if (!ranks.has(rel)) ranks.set(rel, i);
  // Asked once per (file, module) pair in the askers' rounds: each path is resolved once.
  const known = new Map<string, number | undefined>();
  const rankOf = (path: string): number | undefined => {
    const own = ranks.get(path);
    if (own !== undefined) return own;
    const real = realInside(checkoutDir, path);
    if (real === null) return undefined;
    let first = ranks.get(real);
    const below = `${real}/`;
    for (const [p, r] of ranks) if (p.startsWith(below) && (first === undefined || r < first)) first = r;
    return first;
  };
  return (path: string): number | undefined => {
    if (!known.has(path)) known.set(path, rankOf(path));
    return known.get(path);
  };
}

/** Whether the run opened a Python module through `link`: the module it names, or one in the folder it names. */
function loadsPython(checkoutDir: string, link: string, opened: ReadonlySet<string>): boolean {
  const real = realInside(checkoutDir, link);
  if (real === null || real === link) return false;
  // A folder is opened too (listed): what counts is a module file opened in it.
  if (opened.has(real) && (PYTHON_MODULE_FILE.test(link) || PYTHON_MODULE_FILE.test(real))) return true;
  const below = `${real}/`;
  for (const path of opened) if (path.startsWith(below) && PYTHON_MODULE_FILE.test(path)) return true;
  return false;
}

/** The dotted names `path` can be imported by: every tail of its path (`a/b/c.py`: c, b.c, a.b.c). */
export function moduleNames(path: string): string[] {
  const parts = path.split("/");
  const file = parts.pop() ?? "";
  const stem = file === "__init__.py" ? parts.pop() : file.split(".")[0];
  if (!stem) return [];
  const all = [...parts, stem];
  return all.map((_, i) => all.slice(i).join("."));
}

type Imports = { kind: "read"; byFile: Map<string, Set<string>> } | { kind: "failed"; reason: string };

const cache = new Map<string, Promise<Imports>>();

/**
 * What each file imports by name, read by `interpreter`'s own parser (its syntax is the project's).
 * The seam runs several times on one checkout: files unchanged since (path, size, mtime) are read once.
 */
function importsOf(interpreter: string, root: string, files: readonly string[]): Promise<Imports> {
  const key = JSON.stringify([interpreter, root, files.map((f) => [f, stamp(`${root}/${f}`)])]);
  let read = cache.get(key);
  if (read === undefined) {
    if (cache.size > 16) cache.clear();
    read = runProcess({
      command: interpreter,
      // -S: no site, so no `.pth` of any site-packages runs; the parser needs nothing installed.
      args: ["-I", "-S", IMPORTS_SCRIPT],
      cwd: tmpdir(),
      env: baseEnv(),
      stdin: JSON.stringify({ root, files: files.map((f) => `${root}/${f}`) }),
      timeoutMs: 60_000,
      maxOutputBytes: 16 * 1024 * 1024,
      maxExcerptBytes: 16 * 1024 * 1024,
    }).then((r): Imports => {
      if (r.exitCode !== 0) return { kind: "failed", reason: `${interpreter} exited ${r.exitCode}` };
      try {
        const last = r.output.trimEnd().split("\n").at(-1) ?? "";
        const parsed = JSON.parse(last) as Record<string, string[]>;
        const byFile = new Map<string, Set<string>>();
        for (const [abs, names] of Object.entries(parsed))
          byFile.set(abs.slice(root.length + 1), new Set(names));
        return { kind: "read", byFile };
      } catch (error) {
        return { kind: "failed", reason: `unreadable answer: ${(error as Error).message}` };
      }
    });
    cache.set(key, read);
  }
  return read;
}

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return "gone";
  }
}
