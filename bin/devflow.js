#!/usr/bin/env node
// Thin launcher: devflow ships as TypeScript and runs through tsx's loader, so no build step is needed.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const tsx = join(dirname(require.resolve("tsx/package.json")), "dist", "cli.mjs");
const main = join(here, "..", "src", "cli", "main.ts");
const res = spawnSync(process.execPath, [tsx, main, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(res.status ?? 1);
