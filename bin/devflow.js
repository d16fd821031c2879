#!/usr/bin/env node
// The launcher: runs the compiled CLI (dist/) in this process, no loader and no child process
// (ADR 0042). In a development checkout (src/ beside dist/) a missing or stale build is refused
// with one line saying how to rebuild, never silently run from the sources.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (existsSync(join(root, "src")) && existsSync(join(root, "scripts", "build-freshness.mjs"))) {
  const { staleBuild } = await import("../scripts/build-freshness.mjs");
  const stale = staleBuild(root);
  if (stale !== null) {
    process.stderr.write(
      `devflow: ${stale}; run \`npm run build\` in ${root} (or \`npm run devflow -- <args>\` to run the sources with tsx)\n`,
    );
    process.exit(2);
  }
}
await import(pathToFileURL(join(root, "dist", "src", "cli", "main.js")).href);
