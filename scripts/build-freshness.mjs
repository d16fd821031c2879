// Whether dist/ is missing or older than the sources it was built from (a development checkout
// only: an installed package ships dist/ without src/). Used by bin/devflow.js before it loads dist.
import { statSync } from "node:fs";
import { join } from "node:path";
import { BUILD_STAMP, COMPILED_DIRS, COPIED_DIRS, isBuildInput, walk } from "./build-tree.mjs";

/** Why dist/ cannot be trusted (one clause naming what is wrong), or null when it is current. */
export function staleBuild(root) {
  let built;
  try {
    built = statSync(join(root, "dist", BUILD_STAMP)).mtimeMs;
  } catch {
    return "the compiled build (dist/) is missing";
  }
  for (const dir of [...COMPILED_DIRS, ...COPIED_DIRS]) {
    for (const rel of walk(join(root, dir))) {
      if (!isBuildInput(rel)) continue;
      if (statSync(join(root, dir, rel)).mtimeMs > built) return `dist/ is older than ${join(dir, rel)}`;
    }
  }
  return null;
}
