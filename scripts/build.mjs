// `npm run build`: tsc (tsconfig.build.json) into dist/, then the run-time assets beside the code,
// so dist/ is a mirror of the package root that runs in plain node (ADR 0042). Files whose source
// is gone are removed: scenario discovery lists dist/scenarios, so a stale .js would be a scenario.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_STAMP, COMPILED_DIRS, COPIED_DIRS, isBuildInput, walk } from "./build-tree.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json")], {
  stdio: "inherit",
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** The dist/ file a source file becomes: `.ts` compiles to `.js`, anything else is copied. */
const output = (rel) => (rel.endsWith(".ts") ? rel.replace(/\.ts$/, ".js") : rel);

const expected = new Set();
for (const dir of [...COMPILED_DIRS, ...COPIED_DIRS]) {
  for (const rel of walk(join(ROOT, dir))) {
    if (!isBuildInput(rel)) continue;
    const from = join(ROOT, dir, rel);
    const to = join(DIST, dir, output(rel));
    if (rel.endsWith(".ts")) {
      // tsconfig.build.json leaves some .ts out (tests, fixtures' own sources): only what it emitted counts.
      if (existsSync(to)) expected.add(to);
      continue;
    }
    expected.add(to);
    if (existsSync(to) && statSync(to).mtimeMs >= statSync(from).mtimeMs) continue;
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
}

// ajv validators compiled once here instead of at first use in every process (issue 11); the
// code that writes and loads them is src/artifacts/precompiled-validators.ts (compiled above).
const { writePrecompiledValidators } = await import(
  new URL("../dist/src/artifacts/precompiled-validators.js", import.meta.url).href
);
for (const dir of COPIED_DIRS.filter((d) => d === "schemas"))
  for (const file of await writePrecompiledValidators(join(DIST, dir))) expected.add(file);

let pruned = 0;
for (const dir of [...COMPILED_DIRS, ...COPIED_DIRS]) {
  for (const rel of walk(join(DIST, dir))) {
    const file = join(DIST, dir, rel);
    if (expected.has(file)) continue;
    rmSync(file);
    pruned++;
  }
}

writeFileSync(join(DIST, BUILD_STAMP), `${new Date().toISOString()}\n`);
console.log(
  `devflow build: dist/ ready (${expected.size} files${pruned > 0 ? `, ${pruned} stale removed` : ""})`,
);
