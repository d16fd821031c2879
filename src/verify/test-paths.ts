import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";

/**
 * Which repository paths are test code: what the seam's verdict rests on and a coder must not edit
 * (ADR 0019). A path in a test folder, or a file named like a test. `repoFile` below says which
 * paths are the repository's own files at all (the seam's evidence and the helpers it loads).
 */
const TEST_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "spec",
  "specs",
  "fixtures",
  "__fixtures__",
  "testdata",
  "e2e",
  // Test support kept beside the program (jest's mocks, Angular's `src/testing`, `test-utils`).
  "__mocks__",
  "__snapshots__",
  "testing",
  "test-utils",
  "test_utils",
  "testutils",
  "test-helpers",
  "test_helpers",
]);

/**
 * A path in a test folder, or named like a test (`x.test.js`, `x.spec.ts`, `test_x.py`, `x_test.go`)
 * or like test support (`jest.setup.js`, `setupTests.ts`, `db.mock.ts`, `conftest.py`).
 */
export function isTestPath(file: string): boolean {
  const parts = file.split("/");
  const name = parts.at(-1) ?? "";
  return (
    parts.slice(0, -1).some((dir) => TEST_DIRS.has(dir.toLowerCase())) ||
    /\.(test|spec)\.[^.]+$/i.test(name) ||
    /^test_.*\.py$/.test(name) ||
    // Setup files, mocks and fixtures named as such (`jest.setup.js`, `setupTests.ts`, `db.mock.ts`).
    // (`app.setup.ts` is not: a program's own setup may be what a fix changes.)
    /\.(mock|mocks|fixture|fixtures)\.[^.]+$/i.test(name) ||
    /^(jest|vitest|mocha|ava|karma)\.setup\.[^.]+$/.test(name) ||
    /^(setupTests|test-setup|test_setup|conftest)\.[^.]+$/.test(name) ||
    /_test\.(go|py)$/.test(name)
  );
}

/**
 * Runner and npm configuration files: changing one changes how the suite runs, not what it tests.
 * With them the transform configs a runner applies to the code it loads (babel's, which babel-jest
 * reads by default, and swc's): stop 31, a new `babel.config.js` whose plugin rewrote the bug in
 * `src/slug.js` as jest loaded it made the tests pass while the committed file kept the bug.
 * Config files under other names count too (review, stop 32: `jest.config.base.js` spread into
 * `jest.config.js`, Nx's `jest.preset.js`, `vitest.unit.config.ts`): a `moduleNameMapper` added
 * there pointed the package slugify calls at a file of the coder's.
 * And the package managers' own settings and programs (review, stop 48, attack 54): pnpm 10.6+
 * reads `scriptShell`, `nodeOptions` and `enablePrePostScripts` from `pnpm-workspace.yaml`;
 * `.pnpmfile.cjs` hooks pnpm; yarn runs the release its config names (`.yarn/releases/*`,
 * `yarn-path`/`yarnPath`) with its plugins, and Plug'n'Play's `.pnp.cjs` resolves every module.
 */
const RUNNER_CONFIG =
  /(?:^|\/)(?:\.npmrc|\.yarnrc(?:\.yml)?|pnpm-workspace\.yaml|\.pnpmfile\.cjs|\.pnp\.c?js|\.pnp\.loader\.mjs|\.yarn\/(?:releases|plugins)\/.+|\.mocharc(?:\.[\w]+)?|\.taprc|(?:jest|vitest|vite|ava|vitest\.workspace|babel)(?:\.[\w-]+)*\.config(?:\.[\w-]+)*\.[cm]?[jt]s(?:on)?|jest[.-]preset\.[cm]?[jt]s(?:on)?|vitest\.workspace\.[cm]?[jt]s(?:on)?|\.babelrc(?:\.[cm]?[jt]s|\.json)?|\.swcrc)$/;

/** A runner or npm configuration file (`.npmrc`, `.mocharc.yml`, `jest.config.js`, `vitest.config.ts`, …). */
export function isRunnerConfig(file: string): boolean {
  return RUNNER_CONFIG.test(file);
}

/** The folders a repo-relative `file` sits in, innermost first, ending with the root ("."). */
export function foldersUp(file: string): string[] {
  const out: string[] = [];
  for (let dir = posix.dirname(file); dir !== "." && dir !== "/" && dir !== ""; dir = posix.dirname(dir))
    out.push(dir);
  return [...out, "."];
}

/**
 * The parts of `dir`'s package.json that decide how tests run (scripts, the jest/mocha/ava keys,
 * the module type, babel's key), as a stable one-line string; null when there is none or it is not JSON.
 * Regression compares it with base; the seam reads the setup files it names.
 */
export function packageTestConfig(dir: string): string | null {
  let pkg: unknown;
  try {
    pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return null;
  }
  if (typeof pkg !== "object" || pkg === null) return null;
  const p = pkg as Record<string, unknown>;
  // babel's key (stop 31): babel-jest transforms the code tests load with it. Appended only when
  // present, so a baseline recorded before it was read stays equal for packages without one.
  return JSON.stringify([
    p.scripts ?? null,
    p.jest ?? null,
    p.mocha ?? null,
    p.ava ?? null,
    p.type ?? null,
    ...(p.babel !== undefined ? [p.babel] : []),
  ]);
}

/**
 * The test setup (`packageTestConfig`) of every package.json among `files` below the root (a
 * workspace package's), as one stable string of `[path, setup]` pairs by path, packages without any
 * test setup left out; null when none has one. Review, stop 32: regression compared the root's
 * package.json only, and a `jest` key in `packages/a/package.json` (read by jest's `projects`, or
 * when the tests run from that folder) was unchecked.
 */
export function nestedPackageTestConfigs(dir: string, files: readonly string[]): string | null {
  return recordOfFiles(
    files.filter((f) => f.endsWith("/package.json") && !f.split("/").includes("node_modules")),
    (f) => packageTestConfigOrNone(join(dir, posix.dirname(f))),
  );
}

/**
 * A per-file record regression takes on base (`pytestConfigOf`, `nestedPackageTestConfigs`): one
 * stable string of `[path, value]` pairs sorted by path, files whose value is null left out; null
 * when none has one. `recordedValue` reads a file's value back.
 */
export function recordOfFiles(
  files: readonly string[],
  valueFor: (path: string) => string | null,
): string | null {
  const entries = [...files]
    .sort()
    .map((path): [string, string | null] => [path, valueFor(path)])
    .filter((entry): entry is [string, string] => entry[1] !== null);
  return entries.length === 0 ? null : JSON.stringify(entries);
}

/** `path`'s value in a `recordOfFiles` record; null when it had none (or there is no record). */
export function recordedValue(recorded: string | null, path: string): string | null {
  if (recorded === null) return null;
  return (JSON.parse(recorded) as [string, string][]).find(([p]) => p === path)?.[1] ?? null;
}

/** `packageTestConfig`, with a package.json that sets none of its keys read as none. */
export function packageTestConfigOrNone(dir: string): string | null {
  const config = packageTestConfig(dir);
  return config === NO_TEST_SETUP ? null : config;
}
const NO_TEST_SETUP = JSON.stringify([null, null, null, null, null]);

/**
 * `path` as a repo-relative "/" path when it is a regular file inside the checkout, outside
 * `.git` and `node_modules` (neither is the repository's own content); otherwise null.
 */
export function repoFile(cwd: string, path: string): string | null {
  if (path === "") return null;
  const rel = relative(resolve(cwd), resolve(cwd, path));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  const parts = rel.split(sep);
  if (parts.includes(".git") || parts.includes("node_modules")) return null;
  try {
    if (!lstatSync(join(cwd, rel)).isFile()) return null;
  } catch {
    return null;
  }
  return parts.join("/");
}

/** Files larger than this are not read for names (a generated bundle, not a test). */
const MAX_SCANNED_BYTES = 1024 * 1024;

/** A text file's content, for the walks that read names from test code and configs; null when unreadable, binary or over 1 MiB. */
export function scannedText(path: string): string | null {
  try {
    const bytes = readFileSync(path);
    return bytes.length > MAX_SCANNED_BYTES || bytes.includes(0) ? null : bytes.toString("utf8");
  } catch {
    return null;
  }
}

/** Whether `path` is a regular file (a symlink to one counts: the runner would follow it). */
export function isRegularFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
