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
  for (let hop = 0; script !== null && hop < MAX_HOPS; hop++) {
    const delegated = delegatedScript(script);
    const target = delegated?.name;
    if (target === undefined || scripts[target] === undefined) break;
    const pre = scripts[`pre${target}`];
    // yarn 2+ and pnpm 7+ run no pre scripts; npm always does.
    if (delegated?.manager === "npm" && pre !== undefined)
      npmPreScripts.push({ name: `pre${target}`, script: pre });
    script = scripts[target] ?? null;
  }
  if (script !== null && (script.trim() === "" || /no test specified/i.test(script))) script = null;
  return { script, dependencies, npmPreScripts };
}
