/**
 * Attack 52i (review of stop 41/47, `INTERPRETERS` in src/verify/test-command-recipes.ts; unit
 * level): a build step run by a TypeScript runner (`"pretest": "tsx scripts/build.ts"`, `ts-node`,
 * `babel-node`, `npx tsx`, `bun`) is not a recipe, so neither it nor its helpers (the stop-47 rule)
 * are test configuration.
 *
 * Observed: `saysWhatTheTestCommandRuns("npm test", dir)` is false for scripts/build.ts and for the
 * scripts/copy.ts it imports, for each of these pre scripts; the same build run as
 * `node --import tsx scripts/build.ts` makes scripts/build.ts a recipe (control). So an attempt
 * can edit scripts/build.ts (or copy.ts) to repair in dist/ what it broke in src/, exactly attack
 * 49's shape, with no setup finding and no ADR 0082 rerun (regression reads only this predicate
 * and `filesTheTestCommandNames`, which keeps option values only).
 *
 * Cause: `recipesOf` adds the script operand only for programs in `INTERPRETERS` (sh, bash, dash,
 * zsh, node, python, python3, ruby, perl) or a program named by a path; `tsx`, `ts-node`,
 * `babel-node`, `bun`, `deno run`, `npx <x>` are none of them. `helpersOf` starts from `found`, so
 * it never sees the script either.
 *
 * Should: treat the common JS/TS script runners (and `npx`/`pnpm exec`/`yarn` in front of them) as
 * interpreters, so their script operand is a recipe and its local helpers follow. Not confirmed
 * through a real run here (tsx is not in the fixture's node_modules); the real-run equivalent of
 * the same missed file is attack 52f.
 *
 * Fixed (stop 47), was `it.fails`: tsx, ts-node, babel-node and bun are interpreters, and `npx`
 * in front of one is skipped (`JS_RUNNERS`, `recipesOf`). The script's own helpers (copy.ts) are
 * not followed: `helpersOf` was withdrawn (ADR 0085's stop 47 amendment); attack 49's `it.fails`
 * case pins that residue.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { saysWhatTheTestCommandRuns } from "../../../src/verify/test-command-recipes.js";

function checkout(pretest: string): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-attack52i-"));
  const files: Record<string, string> = {
    "package.json": JSON.stringify({ scripts: { pretest, test: "mocha" } }),
    "scripts/build.ts": 'import { transform } from "./copy.ts";\nconsole.log(transform("x"));\n',
    "scripts/copy.ts": "export const transform = (t: string) => t;\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("a pre script run by a TypeScript runner (attack 52i)", () => {
  it.each([
    "node --import tsx scripts/build.ts",
    "tsx scripts/build.ts",
    "ts-node scripts/build.ts",
    "npx tsx scripts/build.ts",
    "npx --yes tsx scripts/build",
    "babel-node scripts/build.ts",
    "bun scripts/build.ts",
  ])("`pretest: %s`: scripts/build.ts says what the test command runs", (pretest) => {
    const runs = saysWhatTheTestCommandRuns("npm test", checkout(pretest));
    expect(runs("scripts/build.ts"), "scripts/build.ts").toBe(true);
  });
});
