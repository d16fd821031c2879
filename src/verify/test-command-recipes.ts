import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import { NPM_TEST, scriptsOfRun, scriptsRunBy, simpleCommands } from "./test-command-names.js";
import { isRegularFile, isTestPath } from "./test-paths.js";

/**
 * The files a task-runner program reads its recipes from, in the folder it runs in: what
 * `make test`, `tox` or `nox` run is written there, not in the test command.
 */
const RECIPE_FILES: ReadonlyMap<string, readonly string[]> = new Map([
  ["make", ["GNUmakefile", "makefile", "Makefile"]],
  ["tox", ["tox.ini", "tox.toml"]],
  ["nox", ["noxfile.py"]],
  ["just", ["justfile", "Justfile", ".justfile"]],
  ["invoke", ["tasks.py", "invoke.yaml"]],
  ["inv", ["tasks.py", "invoke.yaml"]],
]);

/** A runner's option naming the recipe file or the folder it runs in. */
const FILE_OPTIONS = new Set(["-f", "--file", "--makefile", "-c", "--justfile", "--noxfile"]);
const DIR_OPTIONS = new Set(["-C", "--directory", "--working-directory"]);

/** Shells: their `-c` gives a command to read, not a script. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh"]);
/** JavaScript and TypeScript runners: their script operand is resolved as node resolves a main module. */
const JS_RUNNERS = new Set(["node", "tsx", "ts-node", "ts-node-esm", "babel-node", "bun"]);
/** Programs that run the script named after them (`bash ci/test.sh`, `python3 run_tests.py`, `tsx scripts/build.ts`). */
const INTERPRETERS = new Set([...SHELLS, ...JS_RUNNERS, "python", "python3", "ruby", "perl"]);
/** Interpreter options whose value is the next word (`python3 -W ignore run.py`, `node --import tsx x.ts`). */
const VALUE_OPTIONS = new Set([
  "-W",
  "-X",
  "--import",
  "-r",
  "--require",
  "--loader",
  "--experimental-loader",
]);
/** Options that give the program inline: no script file follows (`sh -c '…'` is read as a command). */
const INLINE_OPTIONS = new Set(["-c", "-e", "--eval", "-p", "--print"]);

/**
 * Whether a repository file says what the test command runs (reviews, stop 41): the recipe file of
 * a task runner the command starts (the Makefile `make test` reads, `tox.ini`, `noxfile.py`, a
 * justfile), what that Makefile includes and the scripts its recipes run, a script the command runs
 * (`./scripts/test.sh`, `bash ci/test.sh`), and for `npm test` the same of package.json's test
 * script. Regression runs the attempt's copy of such a file; changed, the suite no longer runs as
 * on base (`make test` with a rewritten recipe printed passing lines while a test was broken). Test
 * files are never recipes, also when a command runs one (`python3 tests/test_app.py`): the suite's
 * tests may change (ADR 0019). `dir` is the checkout, read for package.json and Makefiles.
 */
export function saysWhatTheTestCommandRuns(
  command: string,
  dir: string | null = null,
  /** Base's package.json scripts (the baseline's record): read as well as `dir`'s. */
  baseScripts: Readonly<Record<string, unknown>> | null = null,
): (file: string) => boolean {
  const found = new Set<string>();
  const queue = [command];
  // `npm test` runs package.json's scripts (unchanged, or regression's package.json check fails),
  // and a script runs another with `npm run <name>`, `pre<name>` and `post<name>` with it. Base's
  // and the checkout's scripts both: an attempt that drops a `pretest` does not hide its build.
  const records = [baseScripts, dir !== null ? packageScripts(dir) : null].filter((r) => r !== null);
  const script = (name: string) => {
    for (const record of records) {
      const text = record[name];
      if (typeof text === "string" && !queue.includes(text)) queue.push(text);
    }
  };
  if (NPM_TEST.test(command)) for (const name of ["pretest", "test", "posttest"]) script(name);
  // Bounded: each `sh -c '…'` or `npm run` adds commands, and a command can hold another.
  for (let i = 0; i < queue.length && i < 50; i += 1)
    for (const segment of simpleCommands(queue[i] ?? "")) {
      for (const run of scriptsRunBy(segment)) for (const name of scriptsOfRun(run)) script(name);
      const inline = recipesOf(segment, found, dir);
      if (inline !== null) queue.push(inline);
    }
  return (file) => found.has(file);
}

/** A script the command runs; a test file is the suite's, never a recipe (ADR 0019). */
function addScript(found: Set<string>, path: string): void {
  const file = posix.normalize(path);
  if (!isTestPath(file)) found.add(file);
}

/** Adds to `found` what one simple command runs; returns a command it runs inline (`sh -c '…'`), if any. */
function recipesOf(segment: string, found: Set<string>, dir: string | null): string | null {
  const words = segment
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/^["']|["']$/g, ""))
    .filter((w) => w !== "" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  skipLaunchers(words);
  const [program = "", ...rest] = words;
  const name = posix.basename(program);
  if (program.includes("/")) addScript(found, program);
  // `python3 -m tox` runs tox as well as `tox` does.
  const runner = name.startsWith("python") && rest[0] === "-m" ? (rest[1] ?? "") : name;
  const recipes = RECIPE_FILES.get(runner);
  if (recipes) {
    let folder = ".";
    for (const [i, word] of rest.entries()) {
      const value = rest[i + 1];
      if (DIR_OPTIONS.has(word) && value) folder = posix.normalize(value);
      if (FILE_OPTIONS.has(word) && value) found.add(posix.normalize(posix.join(folder, value)));
    }
    for (const recipe of recipes) found.add(posix.normalize(posix.join(folder, recipe)));
    if (runner === "make" && dir !== null) for (const file of makefileReaches(dir, folder)) found.add(file);
    return null;
  }
  if (!INTERPRETERS.has(name) || rest.includes("--test")) return null;
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i] ?? "";
    if (INLINE_OPTIONS.has(word)) return SHELLS.has(name) ? rest.slice(i + 1).join(" ") : null;
    if (VALUE_OPTIONS.has(word)) i += 1;
    else if (word === "-m") return null;
    else if (!word.startsWith("-")) {
      if (!JS_RUNNERS.has(name)) {
        addScript(found, word);
        return null;
      }
      // A JavaScript runner's options may take their value as the next word (`--env-file
      // .env.test`, `-C development`, `ts-node -P tsconfig.json`): a word before the script that is
      // a file of the checkout is kept too, and the script is the first operand node would run
      // as JavaScript (review, stop 47, attack 53).
      const operand = name === "bun" && word === "run" ? (rest[i + 1] ?? "") : word;
      const files = mainModules(operand, dir);
      for (const file of files) addScript(found, file);
      // A JavaScript file node would run that is not in this checkout (an attempt would add it, or
      // a build writes it) is the script all the same: the words after it are still looked at.
      if (files.length === 0 && (dir === null || JS_SCRIPT.test(operand))) addScript(found, operand);
      if (dir === null || files.some((file) => JS_SCRIPT.test(file))) return null;
    }
  }
  return null;
}

const JS_SCRIPT = /\.(?:[cm]?js|[cm]?ts|jsx|tsx)$/;

/**
 * Drops what only launches the program that follows (review, stop 47, attack 53): `env [-i] [-S]`
 * and `/usr/bin/env`, `cross-env`, `npx [-y] [-p <pkg>]`, `npm exec`/`pnpm exec` (and `--`),
 * `yarn node` (yarn runs node).
 */
function skipLaunchers(words: string[]): void {
  for (let guard = 0; guard < 8; guard += 1) {
    const first = posix.basename(words[0] ?? "");
    if (first === "env" || first === "cross-env") words.shift();
    else if (first === "npx") {
      words.shift();
      while (words[0]?.startsWith("-")) {
        const option = words.shift();
        if (option === "-p" || option === "--package") words.shift();
      }
    } else if ((first === "npm" || first === "pnpm") && words[1] === "exec") words.splice(0, 2);
    else if (first === "yarn" && words[1] === "node") words.shift();
    else if (words[0]?.startsWith("-") && guard > 0)
      words.shift(); // a launcher's own option (`env -i`, `--`)
    else return;
  }
}

/**
 * The files of the checkout a JavaScript runner's operand names: the one node runs for it,
 * resolved as node resolves a main module (`X`, `X.js`, `X.json`, `X.node`, a folder's package.json
 * `main`, its `index.js`; tsx, ts-node and bun also `.ts`), and, when that is a link, the file it
 * leads to (an edit made through the link shows there). Review, stop 47 (attacks 52, 53): `node
 * scripts/build` left scripts/build.js unguarded; a hand-made suffix list picked `build.cjs` where
 * node runs `build/index.js`. Empty when nothing there is a file, or outside the checkout.
 */
function mainModules(word: string, dir: string | null): string[] {
  if (dir === null || word === "" || word.startsWith("-")) return [];
  const inside = (path: string): string | null => {
    const rel = relative(dir, path);
    return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? null : rel.split(sep).join("/");
  };
  let resolved: string | null = null;
  const request = isAbsolute(word) ? word : `./${word}`;
  try {
    // node resolves links to their target; the path as written is added below.
    resolved = createRequire(join(dir, "noop.js")).resolve(request);
  } catch {
    resolved =
      TS_SUFFIXES.map((suffix) => join(dir, `${word.replace(/\/$/, "")}${suffix}`)).find(isRegularFile) ??
      null;
  }
  if (resolved === null) return [];
  const named = join(dir, word);
  const out = new Set<string>();
  for (const path of [isRegularFile(named) ? named : resolved, resolved, realTarget(resolved)]) {
    const rel = path === null ? null : inside(path);
    if (rel !== null) out.add(rel);
  }
  return [...out];
}

/** What tsx, ts-node and bun try beyond node's suffixes. */
const TS_SUFFIXES = [".ts", ".mts", ".cts", "/index.ts"];

function realTarget(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** package.json's scripts in `dir`, or null. */
function packageScripts(dir: string): Readonly<Record<string, unknown>> | null {
  try {
    const scripts = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { scripts?: unknown })
      .scripts;
    return typeof scripts === "object" && scripts !== null ? (scripts as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * What the Makefile in `folder` reads or runs besides itself: the files it includes and the
 * repository paths its recipe lines name (`./scripts/test.sh`, `ci/env.sh`). Read as text, not run.
 */
function makefileReaches(dir: string, folder: string): string[] {
  const reached: string[] = [];
  for (const name of RECIPE_FILES.get("make") ?? []) {
    let text: string;
    try {
      text = readFileSync(join(dir, folder, name), "utf8");
    } catch {
      continue;
    }
    for (const line of text.split(/\r?\n/)) {
      const include = /^\s*-?s?include\s+(.+)$/.exec(line);
      const words = include
        ? (include[1] ?? "").split(/\s+/)
        : line.startsWith("\t")
          ? line.split(/[\s"'`;|&()]+/)
          : [];
      for (const word of words)
        if (word !== "" && !word.includes("$") && (include || word.includes("/"))) {
          const file = posix.normalize(posix.join(folder, word));
          if (include || !isTestPath(file)) reached.push(file);
        }
    }
  }
  return reached;
}
