// The one description of the compiled tree, shared by the build (scripts/build.mjs) and the
// launcher's freshness check (bin/devflow.js): dist/ mirrors the package root for these folders.
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Folders compiled by tsconfig.build.json, with their run-time assets copied beside the code. */
export const COMPILED_DIRS = ["src", "scenarios", "playground", "evals"];
/** Folders copied as they are (read at run time, nothing to compile). */
export const COPIED_DIRS = ["schemas"];
/** Written last by the build: its mtime is the build's. */
export const BUILD_STAMP = ".build-stamp";

const SKIPPED = new Set(["node_modules", ".devflow"]);

/** Files a build depends on: sources and assets, not tests (editing a test does not stale the build). */
export function isBuildInput(name) {
  return !/\.test\.ts$|\.test-support\.ts$/.test(name);
}

/** Every file under `dir` (relative paths), skipping dependency folders and devflow's own state. */
export function walk(dir, rel = "") {
  const out = [];
  let entries;
  try {
    entries = readdirSync(join(dir, rel), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (SKIPPED.has(e.name)) continue;
    const path = rel === "" ? e.name : join(rel, e.name);
    if (e.isDirectory()) out.push(...walk(dir, path));
    else out.push(path);
  }
  return out;
}
