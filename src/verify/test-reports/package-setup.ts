import { z } from "zod";
import { delegatedScript } from "../test-command-names.js";
import type { NpmScript, PackageTestSetup } from "./runner-adapter.js";

const PackageJson = z.object({
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
  }
  if (script !== null && (script.trim() === "" || /no test specified/i.test(script))) script = null;
  // npm gives every script it runs its environment (`npm_package_config_*`, `npm_config_*`, …);
  // devflow runs the pinned script itself, where those are unset (review, stop 47, attack 51: a
  // `mocha $npm_package_config_spec` ran no spec, on base and after, and a break passed).
  const readsNpm = [script ?? "", ...npmPreScripts.map((s) => s.script)].find((text) => NPM_ENV.test(text));
  if (readsNpm !== undefined && notAsThePackageManagerRuns === null)
    notAsThePackageManagerRuns = `\`${readsNpm.trim()}\` reads npm's environment (${NPM_ENV.exec(readsNpm)?.[0]}), which only npm gives a script`;
  return { script, dependencies, npmPreScripts, notAsThePackageManagerRuns };
}

/** A shell reference to a variable npm sets for the scripts it runs: `$npm_x`, `${npm_x}`. */
const NPM_ENV = /\$\{?npm_\w*/;
