import { existsSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(import.meta.url);

/**
 * Whether this process runs the compiled build (`dist/`, plain node) rather than the TypeScript
 * sources (tsx, vitest). ADR 0042.
 */
export const COMPILED = extname(HERE) === ".js";

/**
 * The root of the tree devflow's code runs from: the checkout when it runs from src/, `dist/` when
 * compiled. Every file devflow reads at run time (agents' prompts, tool descriptions, schemas/,
 * scenarios' fixtures, cassettes and coder scripts, the playground) sits at the same relative path
 * under it, because the build copies them into dist/ beside the code (scripts/build.mjs).
 */
export const PACKAGE_ROOT = join(dirname(HERE), "..", "..");

/**
 * The installed package itself (package.json, node_modules, bin/): the checkout, or the folder a
 * global install or `npx` put devflow in. Differs from PACKAGE_ROOT only when compiled.
 */
export const INSTALL_ROOT =
  COMPILED && !existsSync(join(PACKAGE_ROOT, "package.json")) ? join(PACKAGE_ROOT, "..") : PACKAGE_ROOT;

/** The module devflow loads at run time for `<path without extension>`: `.ts` from src/, `.js` compiled. */
export function codeFile(pathWithoutExtension: string): string {
  return join(PACKAGE_ROOT, `${pathWithoutExtension}${COMPILED ? ".js" : ".ts"}`);
}
