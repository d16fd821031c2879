import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, posix } from "node:path";
import { baseEnv } from "../process/env.js";
import { findExecutable } from "../process/find-executable.js";
import { extraWritableDirs, within } from "../process/mount-seal.js";
import { runProcess } from "../process/run-process.js";
import { realOrSame } from "./seam-opened-files.js";
import { isRegularFile } from "./test-paths.js";

/**
 * New top-level Python modules named like one Python loads from outside the checkout (review of
 * stop 39). `python3 -m pytest` puts the working folder first on `sys.path`, and `pythonpath = .`
 * or pytest's import mode put the root or a test's folder there too: a new root `textwrap.py`,
 * `pdb.py` or `pytest.py` runs in place of the standard library's or pytest's own module, before
 * or around the test, and replaced the function under test while the program stayed buggy (three
 * completions, real pytest). Such a file is program code to every other check.
 *
 * A module here is `N.py`, `N/__init__.py` or an extension `N….so`/`N….pyd` whose folder is the
 * root or a folder with no `__init__.py` (files in a package are its submodules: `pkg/json.py` is
 * `pkg.json`, named like nothing outside). Only what the attempt **added** counts: a module base
 * already had is the project's own design. The names outside are asked of the seam's interpreter
 * (isolated: `-I`, run from the temp dir): the standard library's and every top-level module on
 * its `sys.path`. Where no interpreter runs, nothing is judged: the seam cannot have run Python either.
 */
export async function pythonShadowFindings(input: {
  /** The snapshot's checkout (for the package markers). */
  checkout: string;
  /** Every path the attempt changed since base. */
  changedFiles: readonly string[];
  /** The seam's command (its interpreter is asked for the names). */
  seamCommand: string;
  /** The paths of `paths` that exist in base's tree. */
  onBase: (paths: readonly string[]) => Promise<ReadonlySet<string>>;
  /** Folders besides the checkout the attempt could write (see `helperInterpreter`). */
  attemptDirs?: readonly string[];
}): Promise<string[]> {
  const candidates = input.changedFiles
    .map((path) => ({ path, name: topLevelModuleName(input.checkout, path) }))
    .filter((c): c is { path: string; name: string } => c.name !== null);
  if (candidates.length === 0) return [];
  const interpreter = helperInterpreter(input.seamCommand, {
    checkout: input.checkout,
    attemptDirs: input.attemptDirs ?? [],
  });
  if (interpreter === null)
    return [
      "no python3 out of the attempt's reach to ask which modules Python loads from outside the checkout",
    ];
  const outside = await modulesOutside(interpreter);
  const shadowing = candidates.filter((c) => outside.has(c.name));
  if (shadowing.length === 0) return [];
  const onBase = await input.onBase(shadowing.map((c) => c.path));
  return shadowing
    .filter((c) => !onBase.has(c.path))
    .map(
      (c) =>
        `${c.path} (a new module named \`${c.name}\` like one Python loads from outside the checkout: ` +
        "put first on sys.path, it runs in that module's place)",
    );
}

const IDENTIFIER = /^[A-Za-z_]\w*$/;
/** A module file: `N.py`, or an extension `N.so`, `N.cpython-311-….so`, `N.pyd`. */
const MODULE_FILE = /^([A-Za-z_]\w*)(?:\.py|(?:\.[^/]*)?\.(?:so|pyd))$/;

/** The top-level module `path` would be if its folder were on sys.path; null when it is none. */
export function topLevelModuleName(checkout: string, path: string): string | null {
  const parts = path.split("/");
  const file = parts.at(-1) ?? "";
  // [module name, its folder, the file that must be there for Python to import it by that name]
  const [name, folder, marker] =
    file === "__init__.py" && parts.length >= 2
      ? [parts.at(-2), parts.slice(0, -2), path]
      : IDENTIFIER.test(file)
        ? // A link to a folder (git records the link, not the folder's files): a package by that
          // name (review: a `textwrap` link to `shim/` ran in the standard library's place).
          [file, parts.slice(0, -1), `${path}/__init__.py`]
        : [MODULE_FILE.exec(file)?.[1], parts.slice(0, -1), path];
  if (name === undefined || !IDENTIFIER.test(name) || !isRegularFile(join(checkout, marker))) return null;
  const dir = folder.join("/");
  // A package's files are its submodules: `pkg/json.py` is `pkg.json`.
  if (dir !== "" && isRegularFile(join(checkout, dir, "__init__.py"))) return null;
  return name;
}

/**
 * The interpreter a seam command runs: its first word when that is a Python (`python3`,
 * `/opt/py/bin/python3.12`, `.venv/bin/python` from `cwd`), the `#!` line of a `pytest`/`py.test`
 * script (found on PATH, or by its path), else `python3`.
 */
export function seamInterpreter(command: string, path = process.env.PATH, cwd?: string): string {
  const first = command.trim().split(/\s+/)[0] ?? "";
  const base = posix.basename(first);
  // A relative path (`.venv/bin/python`) as the seam runs it: from the checkout (review of stop 39:
  // taken as python3, whose installed modules may not be the project's).
  const resolved = first.includes("/") && !isAbsolute(first) && cwd ? join(cwd, first) : first;
  const found = findExecutable(resolved, path);
  // A bare name is the run's PATH's to find; a path must be there.
  if (/^python[\d.]*$/.test(base)) return first.includes("/") ? (found ?? "python3") : first;
  if (base === "pytest" || base === "py.test") {
    const shebang = found ? firstLine(found) : null;
    const interpreter = shebang?.startsWith("#!") ? shebang.slice(2).trim().split(/\s+/) : [];
    // `#!/usr/bin/env python3` names the interpreter second.
    const named = posix.basename(interpreter[0] ?? "") === "env" ? interpreter[1] : interpreter[0];
    if (named && /^python[\d.]*$/.test(posix.basename(named))) return named;
  }
  return "python3";
}

/** Where the attempt could have written an interpreter or a script naming one. */
export interface AttemptReach {
  /** The verification checkout the seam runs in. */
  checkout: string;
  /** Other folders the attempt could write: the coder's checkout, devflow's home in the repository. */
  attemptDirs?: readonly string[];
  /** PATH to look programs up on (devflow's own by default). */
  path?: string | undefined;
  /** `DEVFLOW_WRITABLE_DIRS` (read from the environment by default). */
  writable?: readonly string[];
}

/**
 * The interpreter devflow itself runs to ask about the seam's Python (the names it loads, what files
 * import), or null when there is none out of the attempt's reach. These questions run outside the
 * seal (ADR 0075), so they never run a program the attempt may have written (review, stop 40):
 * - a `.venv/bin/python` the attempt rewrote ran unconfined, before any verdict, and wrote into the
 *   user's repository;
 * - judged as named and as resolved: `python -m venv` makes `bin/python` a link out to the base
 *   interpreter, but started by the link's path Python reads the venv's `pyvenv.cfg` and runs its
 *   site-packages' `.pth` files;
 * - the seam's own program too: a tracked `.venv/bin/pytest` whose `#!` names a script in the
 *   coder's checkout (not the verification checkout) ran it.
 * Out of reach means outside the checkout, the other `attemptDirs` and `DEVFLOW_WRITABLE_DIRS`.
 * Otherwise `python3` from PATH answers, if it is out of reach itself. A venv linked in from the
 * user's repository is in the checkout by name: `python3` answers there too, and the names of what
 * only that venv installs are not asked (ADR 0076).
 */
export function helperInterpreter(command: string, reach: AttemptReach): string | null {
  const path = "path" in reach ? reach.path : process.env.PATH;
  const dirs = [
    reach.checkout,
    ...(reach.attemptDirs ?? []),
    ...(reach.writable ?? writableOrRoot()),
  ].flatMap((dir) => [dir, realOrSame(dir)]);
  const inReach = (file: string | null) =>
    file !== null && [file, realOrSame(file)].some((p) => dirs.some((dir) => within(p, dir)));
  const lookUp = (name: string) =>
    findExecutable(name.includes("/") && !isAbsolute(name) ? join(reach.checkout, name) : name, path);
  const named = seamInterpreter(command, path, reach.checkout);
  if (!inReach(lookUp(command.trim().split(/\s+/)[0] ?? "")) && !inReach(lookUp(named))) return named;
  const python3 = findExecutable("python3", path);
  return python3 === null || inReach(python3) ? null : python3;
}

/** The user's writable dirs; "/" (trust nothing but `python3`) when they cannot be read. */
function writableOrRoot(): string[] {
  try {
    return extraWritableDirs();
  } catch {
    return ["/"];
  }
}

function firstLine(file: string): string | null {
  try {
    return readFileSync(file, "latin1").slice(0, 512).split("\n")[0] ?? null;
  } catch {
    return null;
  }
}

// One line per name: "s NAME" for the standard library's and the built-ins, "i NAME" for the
// top-level modules on the interpreter's own sys.path.
// Before Python 3.10 there is no `sys.stdlib_module_names`: the modules of the standard library's
// folders stand for it (review, stop 40: the standard-library exclusion of ADR 0076 part 2 was empty).
const LIST_MODULES = [
  "import os, sys, pkgutil, sysconfig",
  "std = set(getattr(sys, 'stdlib_module_names', ())) | set(sys.builtin_module_names)",
  "paths = sysconfig.get_paths()",
  "folders = [paths['stdlib'], os.path.join(paths['platstdlib'], 'lib-dynload')]",
  "std |= set() if hasattr(sys, 'stdlib_module_names') else {m.name for m in pkgutil.iter_modules(folders)}",
  "installed = {m.name for m in pkgutil.iter_modules()} - std",
  "print('\\n'.join(sorted(['s ' + n for n in std] + ['i ' + n for n in installed])))",
].join("\n");

interface ModulesOutside {
  /** Every top-level name the interpreter loads from outside the checkout. */
  all: ReadonlySet<string>;
  /** The standard library's and the built-in modules' names only (never a project's). */
  stdlib: ReadonlySet<string>;
}

const asked = new Map<string, Promise<ModulesOutside>>();

/** The top-level module names `interpreter` loads from its own `sys.path` (asked once per process). */
export async function modulesOutside(interpreter: string): Promise<ReadonlySet<string>> {
  return (await askModules(interpreter)).all;
}

/** The standard library's and built-in module names of `interpreter` (the same single question). */
export async function stdlibModules(interpreter: string): Promise<ReadonlySet<string>> {
  return (await askModules(interpreter)).stdlib;
}

function askModules(interpreter: string): Promise<ModulesOutside> {
  let names = asked.get(interpreter);
  if (names === undefined) {
    names = runProcess({
      command: interpreter,
      args: ["-I", "-c", LIST_MODULES],
      cwd: tmpdir(),
      env: baseEnv(),
      stdin: "closed",
      timeoutMs: 30_000,
      // The whole list (a large site-packages holds thousands of modules), not a head-and-tail excerpt.
      maxOutputBytes: 4 * 1024 * 1024,
      maxExcerptBytes: 4 * 1024 * 1024,
    }).then((r) => {
      const all = new Set<string>();
      const stdlib = new Set<string>();
      if (r.exitCode !== 0) return { all, stdlib };
      for (const line of r.output.split("\n")) {
        const [kind, name] = line.trim().split(" ");
        if (name === undefined || !IDENTIFIER.test(name)) continue;
        all.add(name);
        if (kind === "s") stdlib.add(name);
      }
      return { all, stdlib };
    });
    asked.set(interpreter, names);
  }
  return names;
}
