import { z } from "zod";
import { delegatedScript } from "../test-command-names.js";
import type { NpmScript, PackageTestSetup } from "./runner-adapter.js";

const PackageJson = z.object({
  name: z.string().optional(),
  version: z.string().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  engines: z.record(z.string(), z.unknown()).optional(),
  bin: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  scripts: z.record(z.string(), z.string()).optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  devDependencies: z.record(z.string(), z.string()).optional(),
});

const MAX_HOPS = 3;

/**
 * The test script as it will really run: `scripts.test`, following a script that only delegates to
 * another script (`"test": "npm run test:unit"`). Null when the package has no usable test script.
 * Also the scripts `npm test` runs before it (`pretest`, and `pre<name>` of each `npm run <name>`
 * hop): a `pretest` often builds what the tests load (`tsc`, a bundle), and the runner started on
 * its own would find nothing or old code (review, stop 46).
 */
export function readPackageTestSetup(packageJsonText: string): PackageTestSetup | null {
  let json: unknown;
  try {
    json = JSON.parse(packageJsonText);
  } catch {
    return null;
  }
  const pkg = PackageJson.safeParse(json);
  if (!pkg.success) return null;
  const scripts = pkg.data.scripts ?? {};
  const dependencies = [
    ...Object.keys(pkg.data.dependencies ?? {}),
    ...Object.keys(pkg.data.devDependencies ?? {}),
  ];
  let script = scripts.test ?? null;
  const npmPreScripts: NpmScript[] =
    scripts.pretest !== undefined ? [{ name: "pretest", script: scripts.pretest }] : [];
  let notAsThePackageManagerRuns: string | null = null;
  let lifecycle = "test";
  for (let hop = 0; script !== null && hop < MAX_HOPS; hop++) {
    const delegated = delegatedScript(script);
    const target = delegated?.name;
    if (delegated === null || target === undefined || scripts[target] === undefined) break;
    const pre = scripts[`pre${target}`];
    // npm always runs `pre<name>`; yarn 1 does too, yarn 2+ does not, pnpm only with
    // `enable-pre-post-scripts` (review, stop 47, attack 51): not known without asking them.
    if (pre !== undefined && delegated.manager === "npm")
      npmPreScripts.push({ name: `pre${target}`, script: pre });
    else if (pre !== undefined && notAsThePackageManagerRuns === null)
      notAsThePackageManagerRuns = `\`${script.trim()}\` may or may not run \`pre${target}\` (yarn 1 and pnpm with enable-pre-post-scripts do, yarn 2+ and pnpm by default do not)`;
    script = scripts[target] ?? null;
    lifecycle = target;
  }
  if (script !== null && (script.trim() === "" || /no test specified/i.test(script))) script = null;
  // npm's configuration (`npm_config_*`: the user's .npmrc, npm's defaults) is npm's to give; the
  // package's own variables are given to devflow's runs (`npmEnv`).
  const readsNpm = [script ?? "", ...npmPreScripts.map((s) => s.script)].find((text) =>
    NPM_CONFIG.test(text),
  );
  if (readsNpm !== undefined && notAsThePackageManagerRuns === null)
    notAsThePackageManagerRuns = `\`${readsNpm.trim()}\` reads npm's configuration (${NPM_CONFIG.exec(readsNpm)?.[0]}), which only npm gives a script`;
  const npmEnv = {
    ...packageVariables(pkg.data),
    npm_lifecycle_event: lifecycle,
    npm_command: lifecycle === "test" ? "test" : "run",
  };
  return {
    script,
    dependencies,
    npmPreScripts,
    notAsThePackageManagerRuns,
    npmEnv,
    scriptName: lifecycle,
    scripts,
  };
}

/** A shell reference to npm's configuration as npm gives it to scripts: `$npm_config_x`, `${npm_config_x}`. */
const NPM_CONFIG = /\$\{?npm_config_\w*/;

/**
 * The variables npm (10, 11) gives every script from package.json: `npm_package_name`,
 * `npm_package_version`, and each leaf of `config`, `engines` and `bin` flattened with `_`
 * (`npm_package_config_spec`, `npm_package_engines_node`). Review, stop 47 (attacks 51, 53): devflow
 * runs the pinned script itself, and `mocha $npm_package_config_spec`, or a `.mocharc.cjs` reading
 * `process.env.npm_package_config_spec`, ran mocha's default spec on base and after.
 */
function packageVariables(pkg: z.infer<typeof PackageJson>): Record<string, string> {
  const env: Record<string, string> = {};
  if (pkg.name !== undefined) env.npm_package_name = pkg.name;
  if (pkg.version !== undefined) env.npm_package_version = pkg.version;
  const flatten = (prefix: string, value: unknown): void => {
    if (value !== null && typeof value === "object" && !Array.isArray(value))
      for (const [key, inner] of Object.entries(value)) flatten(`${prefix}_${key}`, inner);
    else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      env[prefix] = String(value);
  };
  flatten("npm_package_config", pkg.config ?? {});
  flatten("npm_package_engines", pkg.engines ?? {});
  if (typeof pkg.bin === "object") flatten("npm_package_bin", pkg.bin);
  return env;
}
