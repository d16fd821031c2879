import { join, posix } from "node:path";
import { isPytestConfigName } from "./pytest-setup.js";
import { configsNamedByFlag } from "./seam-data-files.js";
import { modulesLoadedBy } from "./seam-helpers.js";
import { foldersUp, isRunnerConfig, scannedText } from "./test-paths.js";

/** TypeScript's and jsconfig's path maps: vitest's tsconfig-paths plugin and ts-jest's mapper read them. */
const PATH_MAP_CONFIG = /(?:^|\/)(?:tsconfig|jsconfig)(?:\.[\w-]+)*\.json$/;
const SCRIPT = /\.(?:[cm]?[jt]sx?)$/i;
/** Settings a script config may read itself (`JSON.parse(readFileSync('./config/test.json'))`). */
const SETTINGS = /\.(?:json5?|ya?ml|toml|ini|cfg|env|txt)$/i;
/**
 * Python package metadata (`x-1.0.dist-info/`, `x.egg-info/`, `x.egg/EGG-INFO/`, every file in one
 * and the folder's own entry, a link included; Python matches the suffixes in any case and takes a
 * bare `.dist-info`): pytest loads every `pytest11` plugin a distribution on `sys.path` registers
 * before any conftest, and the checkout's root is on it when pytest starts (stop 39: a committed
 * dist-info registering a module that replaced the function under test passed the seam with the
 * program unchanged; its review: a `slugfix-1.0.dist-info` link to a folder of another name, and a
 * folder named `.dist-info`).
 */
const PACKAGE_METADATA = /(?:^|\/)(?:[^/]*\.(?:dist|egg)-info|[^/]*\.egg\/egg-info)(?:\/|$)/i;

/**
 * A file that can configure how tests run, as opposed to what they test: a runner, npm or
 * transform config, a package.json (scripts, the runners' keys, `imports`, the module type), a
 * TypeScript path map, pytest's config, Python package metadata (plugins it registers). The seam is judged with base's copy of each (ADR 0074) and
 * the gate names the ones an attempt changed.
 */
export function configuresTests(file: string): boolean {
  return (
    isRunnerConfig(file) ||
    /(?:^|\/)package\.json$/.test(file) ||
    PATH_MAP_CONFIG.test(file) ||
    isPytestConfigName(file) ||
    PACKAGE_METADATA.test(file)
  );
}

/**
 * The repository files base's test configuration is made of besides the configuration files
 * themselves (ADR 0074, review of stop 37): what a script config imports (`vitest.config.js`
 * importing `./config/vitest.shared.js`), transitively, and what a JSON config `extends`
 * (`tsconfig.json` → `./configs/base.json`). Read on base by the Observer node and pinned, so the
 * seam runs with base's copy of them too when the attempt changed them; a file only named (a setup
 * file, test data) is seam evidence instead (ADR 0019). Only the configs that decide the seam's run
 * are read: those in the root and in each folder between it and a seam file (as `runnerSetupFiles`
 * finds them), so a monorepo's other packages cost nothing. Sorted, repo-relative, configs excluded.
 */
export async function testConfigImports(
  cwd: string,
  tracked: readonly string[],
  seamFiles: readonly string[],
  /** The seam's command: a configuration it names by flag (`--config ci/jest.ci.js`) is walked from too. */
  seamCommand = "",
): Promise<string[]> {
  const inRepo = new Set(tracked);
  const found = new Set<string>();
  const folders = new Set(["."]);
  for (const file of seamFiles) for (const folder of foldersUp(file)) folders.add(folder);
  const byFlag = configsNamedByFlag(cwd, seamFiles, seamCommand).filter((file) => inRepo.has(file));
  const queue = [
    ...new Set([
      ...tracked.filter((file) => configuresTests(file) && folders.has(posix.dirname(file))),
      ...byFlag,
    ]),
  ];
  const seen = new Set(queue);
  const add = (file: string) => {
    if (!inRepo.has(file) || seen.has(file)) return;
    seen.add(file);
    found.add(file);
    queue.push(file);
  };
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (SCRIPT.test(file)) {
      // Every script a config loads is configuration code: walked on, whatever its folder.
      const graph = await modulesLoadedBy(file, cwd, () => true);
      for (const loaded of graph?.loaded ?? []) add(loaded);
      // And the settings files it names by a literal path and may read (fourth review: a vitest
      // config reading `./config/test-settings.json` into `setupFiles` took the attempt's copy).
      for (const named of settingsNamedBy(cwd, file)) add(named);
    } else if (file.endsWith(".json") || /(?:^|\/)\.babelrc$/.test(file)) {
      for (const target of extendsOf(cwd, file)) add(target);
    }
  }
  // A flag-named config is a seam file itself (fingerprinted, ADR 0019), not one of its imports.
  return [...found].filter((file) => !configuresTests(file) && !byFlag.includes(file)).sort();
}

/** Settings files (by extension) a script config names by a literal path, relative to its folder. */
function settingsNamedBy(cwd: string, file: string): string[] {
  const text = scannedText(join(cwd, file));
  if (text === null) return [];
  const dir = posix.dirname(file);
  const out: string[] = [];
  for (const m of text.matchAll(/["'`]((?:\.{1,2}\/)?[\w@.\-/]+)["'`]/g)) {
    // `__dirname + '/x.json'` leaves a literal with a leading slash: taken relative to the folder too.
    const name = (m[1] as string).replace(/^\/+/, "");
    if (!SETTINGS.test(name)) continue;
    const path = posix.normalize(posix.join(dir, name));
    if (!path.startsWith("../")) out.push(path);
  }
  return out;
}

/** The repo-relative files a JSON config's `extends` names by a relative path (comments allowed, as tsconfig has them). */
function extendsOf(cwd: string, file: string): string[] {
  const text = scannedText(join(cwd, file));
  if (text === null) return [];
  const value = /"extends"\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\])/.exec(text)?.[1];
  if (value === undefined) return [];
  const names = [...value.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] as string);
  const dir = posix.dirname(file);
  return names
    .filter((name) => name.startsWith("./") || name.startsWith("../"))
    .flatMap((name) => {
      const path = posix.normalize(posix.join(dir, name));
      return path.startsWith("../") ? [] : [path, `${path}.json`];
    });
}
