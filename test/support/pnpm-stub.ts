import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stubFirstOnPath } from "./stub-on-path.js";

/**
 * A `pnpm` executable (this machine has none) honouring the part of pnpm's documented contract the
 * delegation tests need: `pnpm [-s|--silent] [run] <name>` runs package.json's `<name>` script in
 * `sh -c` (or the `scriptShell` setting's program) with `node_modules/.bin` first on PATH, and
 * before it `pre<name>` only when the settings say `enable-pre-post-scripts=true` (pnpm 7+'s rule;
 * pnpm 6 and that setting run them). Settings are read from the project's `.npmrc` and, as pnpm
 * 10.6+ does, from `pnpm-workspace.yaml` (camelCase keys). A missing script exits 1 with pnpm's
 * message. Written into `dir`; put `dir` first on PATH.
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
const { spawnSync } = require("node:child_process");
const { readFileSync } = require("node:fs");
const { delimiter, join } = require("node:path");
const words = process.argv.slice(2).filter((w) => w !== "-s" && w !== "--silent");
const name = words[0] === "run" ? words[1] : words[0];
const scripts = JSON.parse(readFileSync("package.json", "utf8")).scripts ?? {};
if (scripts[name] === undefined) {
  console.error(\`ERR_PNPM_NO_SCRIPT  Missing script: \${name}\`);
  process.exit(1);
}
const read = (f) => { try { return readFileSync(f, "utf8"); } catch { return ""; } };
const settings = {};
for (const line of read(".npmrc").split("\\n")) {
  const m = /^\\s*([\\w-]+)\\s*=\\s*(.*?)\\s*$/.exec(line);
  if (m) settings[m[1].replace(/-(\\w)/g, (_, c) => c.toUpperCase())] = m[2];
}
for (const line of read("pnpm-workspace.yaml").split("\\n")) {
  const m = /^(\\w+)\\s*:\\s*["']?(.*?)["']?\\s*$/.exec(line);
  if (m && m[2] !== "") settings[m[1]] = m[2];
}
const shell = settings.scriptShell || "sh";
const env = { ...process.env, PATH: [join(process.cwd(), "node_modules", ".bin"), process.env.PATH].join(delimiter) };
const prePost = settings.enablePrePostScripts === "true";
for (const script of [prePost ? scripts["pre" + name] : undefined, scripts[name]]) {
  if (script === undefined) continue;
  const r = spawnSync(shell, ["-c", script], { stdio: "inherit", env });
  if (r.status !== 0) process.exit(typeof r.status === "number" ? r.status : 1);
}
`;
