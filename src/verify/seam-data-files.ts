import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { basename, join, posix } from "node:path";
import {
  foldersUp,
  isRunnerConfig,
  isTestPath,
  packageTestConfig,
  repoFile,
  scannedText,
} from "./test-paths.js";

/** The test data a seam's code reads at run time, and what was too large to fingerprint. */
export interface SeamDataFiles {
  /** Repo-relative test files the code names (fixtures, expected outputs, snapshots), sorted. */
  files: string[];
  /** Test folders the code names that hold more files than the limit: named, not fingerprinted. */
  tooLarge: string[];
}

/** How many files a test folder the seam's code names may hold and still be fingerprinted whole. */
export const SEAM_DATA_FOLDER_LIMIT = 2_000;

/**
 * The test data the seam's code reads by name at run time: a fixture opened with `readFileSync`, a
 * folder of cases listed with `readdir`, an expected-output file, jest/vitest snapshots beside the
 * test (`__snapshots__/x.test.js.snap`). Module imports are `seamHelpers`' business; this covers
 * what no import names, so a coder cannot make the seam pass by editing the expected data instead
 * of the code (ADR 0019, amendment 3).
 *
 * The names are the string literals of the code files (`"./fixtures/rows.json"`, `"fixtures"` in
 * `join(__dirname, "..", "fixtures")`, `"data"` in `Path(__file__).parent / "data"`), each tried
 * against the file's own folder and every folder above it up to the repository root. Only
 * existing test paths count (a program's data file may be what the fix changes). A folder counts
 * whole, unless it holds a seam file (`"test"` names the suite, not the seam's data) or more than
 * `limit` files (then it is reported, not fingerprinted). Read on the base checkout, so names the
 * coder adds later do not count.
 */
export function seamDataFiles(
  codeFiles: readonly string[],
  cwd: string,
  limit = SEAM_DATA_FOLDER_LIMIT,
): SeamDataFiles {
  const found = new Set<string>();
  const tooLarge = new Set<string>();
  const codeDirs = codeFiles.map((f) => posix.dirname(f));
  for (const file of codeFiles) {
    const snapshot = repoFile(
      cwd,
      posix.join(posix.dirname(file), "__snapshots__", `${basename(file)}.snap`),
    );
    if (snapshot !== null) found.add(snapshot);
    // A path joined from pieces (`join(__dirname, "..", "fixtures")`) leaves `"fixtures"` as a
    // literal relative to a folder above the file's own.
    const places = foldersUp(file);
    for (const name of namesIn(join(cwd, file))) {
      for (const candidate of places.map((folder) => posix.join(folder, name))) {
        const asFile = repoFile(cwd, candidate);
        if (asFile !== null) {
          if (isTestPath(asFile)) found.add(asFile);
          continue;
        }
        const folder = repoFolder(cwd, candidate);
        if (folder === null || !isTestPath(`${folder}/x`)) continue;
        // A folder holding the seam's own code names the suite (or the seam itself), not its data.
        if (codeDirs.some((d) => d === folder || d.startsWith(`${folder}/`))) continue;
        const inside = filesUnder(cwd, folder, limit);
        if (inside === null) tooLarge.add(folder);
        else for (const f of inside) found.add(f);
      }
    }
  }
  for (const f of codeFiles) found.delete(f);
  return { files: [...found].sort(), tooLarge: [...tooLarge].sort() };
}

/** The distinct string literals of a text file ('…', "…", `…` without `${`); none for a binary or huge file. */
function namesIn(path: string): Set<string> {
  const text = scannedText(path);
  if (text === null) return new Set();
  const names = new Set<string>();
  for (const match of text.matchAll(/(["'`])((?:(?!\1)[^\\\n])+)\1/g)) {
    const value = (match[2] ?? "").trim();
    if (value === "" || value === "." || value === ".." || value.length > 300 || value.includes("${"))
      continue;
    names.add(value);
  }
  return names;
}

/** `path` as a repo-relative folder inside the checkout (not the root, `.git` or `node_modules`); else null. */
function repoFolder(cwd: string, path: string): string | null {
  const rel = posix.normalize(path).replace(/\/+$/, "");
  if (rel === "." || rel === "" || rel.startsWith("..") || posix.isAbsolute(rel)) return null;
  const parts = rel.split("/");
  if (parts.includes(".git") || parts.includes("node_modules")) return null;
  try {
    return lstatSync(join(cwd, rel)).isDirectory() ? rel : null;
  } catch {
    return null;
  }
}

/** Regular files under `folder` (repo-relative, symlinks not followed); null when more than `limit`. */
function filesUnder(cwd: string, folder: string, limit: number): string[] | null {
  const out: string[] = [];
  const pending = [folder];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(cwd, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== ".git" && entry.name !== "node_modules") pending.push(rel);
      else if (entry.isFile()) {
        out.push(rel);
        if (out.length > limit) return null;
      }
    }
  }
  return out;
}

/**
 * Keys of runner configs whose values are files run with every test (jest, vitest, mocha, ava),
 * or code the runner passes every test's modules through: jest's `transform`, `resolver`,
 * `testRunner`, `runner`, `moduleLoader`, `dependencyExtractor`, `snapshotSerializers`,
 * `testSequencer`, `testResultsProcessor` and `reporters`, vitest's `environment`, mocha's `ui` and
 * `reporter`, babel's `plugins`, `presets` and `extends` (ADR 0074: such code runs in the runner's
 * processes, and a transform of the attempt's can rewrite the bug away; a file such a key
 * names by a string is neither an import of the config nor a test path). Only these: a test file a
 * config lists (`spec`, `include`) or a program entry (`build.lib.entry`) is not a setup file, and
 * freezing it would refuse a fix that must also update a test that asserted the bug.
 */
const SETUP_KEY =
  /\b(?:setupFiles(?:AfterEnv)?|globalSetup|globalTeardown|setupFile|require|file|snapshotResolver|testEnvironment|transform|resolver|testRunner|runner|moduleLoader|dependencyExtractor|snapshotSerializers|testSequencer|testResultsProcessor|reporters?|environment|ui|plugins|presets|extends)\b["']?\s*[:=]\s*(\{[^}]*\}|\[[^\]]*\]|[^\n,}]+)/g;

/** Command-line flags (in a test script or `.npmrc` node-options) whose value is a file run first. */
const PRELOAD_FLAG =
  /(?:^|[\s"'=])--?(?:require|r|import|loader|experimental-loader|file|setupFiles|setup-files|globalSetup)(?:=|\s+)([^\s"']+)/g;

/**
 * The files the repository's runner configuration runs with the tests: a setup file named by
 * vitest's or jest's `setupFiles`, mocha's `require`, a `--import ./test/setup.mjs` in the test
 * script. Such a file runs before the seam's test and can change what the code under test does
 * (patch a builtin, mock the module), so it is part of the seam's evidence (ADR 0019, amendment 3).
 * Read on base from the runner configs (`jest.config.js`, `vitest.config.ts`, `.mocharc.yml`,
 * `.npmrc`, …) and package.json's `scripts`, `jest`, `mocha` and `ava`, in the root and in every
 * folder between it and a seam file (a monorepo's package): any existing file a setup key
 * (`setupFiles: ["./setup.js"]`, `require:`) or a preload flag (`--import ./x.mjs`, `-r ./x.cjs`)
 * names, whatever it is called, resolved against the config's folder and the root. A config a
 * script or the seam command names by flag (`jest --config config/jest.ci.js`), whatever its name
 * and folder, joins whole with the setup files it names; so do the setup files and preloads the
 * seam command names itself (`mocha -r test/setup.js`).
 */
export function runnerSetupFiles(cwd: string, seamFiles: readonly string[] = [], seamCommand = ""): string[] {
  const found = new Set<string>();
  eachRunnerConfig(cwd, seamFiles, seamCommand, (folder, text, config) => {
    if (config !== null) found.add(config);
    const values = [...text.matchAll(SETUP_KEY), ...text.matchAll(PRELOAD_FLAG)].map((m) => m[1] ?? "");
    for (const word of values.flatMap(wordsOf)) {
      const file = resolveIn(cwd, folder, word);
      if (file !== null) found.add(file);
    }
  });
  return [...found].sort();
}

/**
 * The texts of the runner configs `runnerSetupFiles` reads (each folder's configs and package.json
 * test keys, the configs named by flag, and the seam command itself), for a setting that is not a
 * file: a name filter the config sets (`testNamePattern`, mocha's `grep`) deselects a canary.
 */
export function runnerConfigTexts(cwd: string, seamFiles: readonly string[], seamCommand: string): string[] {
  const texts: string[] = [];
  eachRunnerConfig(cwd, seamFiles, seamCommand, (folder, text, _config, pkg) => {
    // A package.json's settings, not its scripts (a script named "spec" is no mocha spec), and
    // only the root's: regression compares the root's test keys with base, not a nested one's,
    // which a coder could add to switch a setting on (review, stop 30).
    if (pkg === undefined) texts.push(text);
    else if (folder === ".") texts.push(JSON.stringify(pkg.slice(1)));
  });
  return texts;
}

/**
 * Calls `visit` with each runner config text in the root and every folder up to a seam file (the
 * file's repo path is null: several are one text), the seam command, and then each config any of
 * them names by flag (`jest --config config/jest.ci.js`), whatever its name and wherever it is: it
 * decides the run as much as a config found by name.
 */
function eachRunnerConfig(
  cwd: string,
  seamFiles: readonly string[],
  seamCommand: string,
  /** `pkg`: for a package.json's test keys, the parsed `packageTestConfig` ([scripts, jest, mocha, ava, type]). */
  visit: (folder: string, text: string, config: string | null, pkg?: unknown[]) => void,
): void {
  const folders = new Set<string>(["."]);
  for (const file of seamFiles) for (const dir of foldersUp(file)) folders.add(dir);
  const named = new Set<string>();
  const read = (folder: string, text: string, config: string | null, pkg?: unknown[]) => {
    visit(folder, text, config, pkg);
    for (const match of text.matchAll(CONFIG_FLAG)) {
      const file = resolveIn(cwd, folder, match[1] ?? "");
      if (file !== null) named.add(file);
    }
  };
  for (const folder of [...folders].sort())
    for (const { text, pkg } of configTexts(join(cwd, folder))) read(folder, text, null, pkg);
  read(".", seamCommand, null);
  // A Set's iteration visits what is added during it: a config naming another is followed, once.
  for (const config of named) read(posix.dirname(config), scannedText(join(cwd, config)) ?? "", config);
}

/**
 * The configuration files the seam command names by flag (`jest --config ci/jest.ci.js`), and those
 * such a file or a runner config on the way to a seam file names in turn: repo-relative, sorted.
 * They decide the seam's run as a config found by name does, so what they import is walked too
 * (stop 39: the shared file a `--config` file imported took the attempt's copy).
 */
export function configsNamedByFlag(cwd: string, seamFiles: readonly string[], seamCommand: string): string[] {
  const named = new Set<string>();
  eachRunnerConfig(cwd, seamFiles, seamCommand, (_folder, _text, config) => {
    if (config !== null) named.add(config);
  });
  return [...named].sort();
}

/** A file a config in `folder` names (`./setup.js`, `<rootDir>/x.js`): against its folder, then the root. */
function resolveIn(cwd: string, folder: string, word: string): string | null {
  const name = word.replace(/^<rootDir>\//, "");
  return repoFile(cwd, posix.join(folder, name)) ?? repoFile(cwd, name);
}

/** A runner's config-file flag (jest, vitest, mocha, ava: `--config <file>`, jest/vitest `-c <file>`). */
// `--config-file` is pytest's long form of `-c` (stop 31: it was not read, so the config it named
// was neither pinned nor read).
const CONFIG_FLAG = /(?:^|[\s"'])(?:--config-file|--config|-c)(?:=|\s+)["']?([^\s"'&|;]+)/g;

/** The texts of a folder's runner configs and of its package.json's test keys (with them parsed). */
function configTexts(dir: string): { text: string; pkg?: unknown[] }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter(isRunnerConfig);
  } catch {
    return [];
  }
  const texts = names.sort().map((n) => ({ text: scannedText(join(dir, n)) ?? "" }));
  // Not JSON: nothing is named (regression reports the broken package.json).
  const pkg = packageTestConfig(dir);
  return pkg === null ? texts : [...texts, { text: pkg, pkg: JSON.parse(pkg) as unknown[] }];
}

/** The words of a config's text: quoted or bare, split at spaces, quotes, brackets and `=`/`:`/`,`. */
function wordsOf(text: string): string[] {
  return text.split(/[\s,:=[\]{}()"'`;]+/).filter((w) => w !== "" && w !== "." && w !== "..");
}
