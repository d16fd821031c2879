import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stubFirstOnPath } from "./stub-on-path.js";

/**
 * A `pnpm` executable (this machine has none) honouring the part of pnpm's documented contract the
 * delegation tests need: `pnpm [-s|--silent] [run] <name>` runs package.json's `<name>` script in
 * `sh -c` with `node_modules/.bin` first on PATH, and before it `pre<name>` only when the project's
 * `.npmrc` says `enable-pre-post-scripts=true` (pnpm 7+'s rule; pnpm 6 and that setting run them).
 * A missing script exits 1 with pnpm's message. Written into `dir`; put `dir` first on PATH.
 */
export function writePnpmStub(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "pnpm");
  writeFileSync(path, PNPM_STUB);
  chmodSync(path, 0o755);
  return path;
}

/** The stub, first on PATH for the rest of the test (`onTestFinished` undoes it). */
export const pnpmFirstOnPath = (onTestFinished: (fn: () => Promise<void>) => void): Promise<void> =>
  stubFirstOnPath("pnpm", PNPM_STUB, onTestFinished);

const PNPM_STUB = `#!/usr/bin/env node
const { execFileSync } = require("node:child_process");
const { readFileSync } = require("node:fs");
const { delimiter, join } = require("node:path");
const words = process.argv.slice(2).filter((w) => w !== "-s" && w !== "--silent");
const name = words[0] === "run" ? words[1] : words[0];
const scripts = JSON.parse(readFileSync("package.json", "utf8")).scripts ?? {};
if (scripts[name] === undefined) {
  console.error(\`ERR_PNPM_NO_SCRIPT  Missing script: \${name}\`);
  process.exit(1);
}
let npmrc = "";
try { npmrc = readFileSync(".npmrc", "utf8"); } catch {}
const prePost = /^\\s*enable-pre-post-scripts\\s*=\\s*true\\s*$/m.test(npmrc);
const env = { ...process.env, PATH: [join(process.cwd(), "node_modules", ".bin"), process.env.PATH].join(delimiter) };
for (const script of [prePost ? scripts["pre" + name] : undefined, scripts[name]]) {
  if (script === undefined) continue;
  try {
    execFileSync("sh", ["-c", script], { stdio: "inherit", env });
  } catch (error) {
    process.exit(typeof error.status === "number" ? error.status : 1);
  }
}
`;
