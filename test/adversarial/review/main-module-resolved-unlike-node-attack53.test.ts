/**
 * Attack 53d (review of 9e4cfee, `mainModule` in src/verify/test-command-recipes.ts): FALSE
 * COMPLETION. `mainModule` resolves a JS runner's operand with its own suffix list
 * (`.js .cjs .mjs .ts .cts .mts /index.js /index.ts`), not as node does (LOAD_AS_FILE: X, X.js,
 * X.json, X.node; then LOAD_AS_DIRECTORY: package.json's "main", then index.js), and compares paths
 * as written, without resolving symlinks:
 *   - `node scripts/build` with scripts/build/ a folder whose package.json says `"main": "main.js"`:
 *     node runs scripts/build/main.js; devflow guards `scripts/build` (no file), so main.js is free;
 *   - scripts/build.cjs and scripts/build/index.js both there: node never tries `.cjs` for a main
 *     module and runs scripts/build/index.js; devflow guards scripts/build.cjs (the wrong file);
 *   - `node scripts/build.js` where scripts/build.js is a symlink to tools/build.js: the edit lands
 *     in tools/build.js, which the diff names, and only the link's path is guarded.
 *
 * Attack (end to end, the first case): `"pretest": "node scripts/build"` builds dist/ (loaded by the
 * tests) with scripts/build/main.js. The attempt fixes slugify, breaks `clamp` in src/math.js and
 * edits scripts/build/main.js so dist/math.js has clamp repaired.
 * Observed: regression passes ("no regressions"). Should: fail as attack 52h's `scripts/build.js`
 * edit does: the file node runs is the recipe.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { saysWhatTheTestCommandRuns } from "../../../src/verify/test-command-recipes.js";
import { commitAll, distBuildProject, repairInTheBuild } from "../../support/build-step-project.js";
import { fixtureBaseline } from "../../support/fixture-regression.js";

describe("a build script resolved unlike node (attack 53d)", () => {
  it("`node scripts/build` (a folder with package.json main): an edit of main.js hiding a break must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await distBuildProject(
      { pretest: "node scripts/build", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    await mkdir(join(repo.dir, "scripts/build"));
    await rename(join(repo.dir, "scripts/build.js"), join(repo.dir, "scripts/build/main.js"));
    await writeFile(join(repo.dir, "scripts/build/package.json"), JSON.stringify({ main: "main.js" }));
    await commitAll(repo.dir, "build tool in its own folder");
    // node runs the folder's main (the tests load dist/, which only it writes).
    const ran = await execa("node", ["scripts/build"], { cwd: repo.dir, reject: false });
    expect(ran.exitCode).toBe(0);
    await rm(join(repo.dir, "dist"), { recursive: true, force: true });
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    const run = await repairInTheBuild(repo, base, "scripts/build/main.js");
    console.log("attack53d:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
  }, 240_000);

  const dir = mkdtempSync(join(tmpdir(), "devflow-attack53d-"));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "scripts/pkg"), { recursive: true });
  writeFileSync(join(dir, "scripts/pkg/package.json"), JSON.stringify({ main: "main.js" }));
  writeFileSync(join(dir, "scripts/pkg/main.js"), "");
  mkdirSync(join(dir, "scripts/both"));
  writeFileSync(join(dir, "scripts/both.cjs"), "");
  writeFileSync(join(dir, "scripts/both/index.js"), "");
  mkdirSync(join(dir, "tools"));
  writeFileSync(join(dir, "tools/build.js"), "");
  symlinkSync("../tools/build.js", join(dir, "scripts/linked.js"));

  it("`node scripts/pkg`: the folder's package.json main is the recipe", () => {
    expect(saysWhatTheTestCommandRuns("node scripts/pkg", dir)("scripts/pkg/main.js")).toBe(true);
  });

  it("`node scripts/both` (both.cjs and both/index.js): node's file, both/index.js, is the recipe", () => {
    const says = saysWhatTheTestCommandRuns("node scripts/both", dir);
    expect(says("scripts/both/index.js")).toBe(true);
  });

  it("`node scripts/linked.js` (a symlink): the file it points to is the recipe", () => {
    expect(saysWhatTheTestCommandRuns("node scripts/linked.js", dir)("tools/build.js")).toBe(true);
  });

  it("(control) node itself runs those files", async () => {
    const files: Array<[string, string]> = [
      ["scripts/pkg/main.js", "pkg-main"],
      ["scripts/both.cjs", "both-cjs"],
      ["scripts/both/index.js", "both-index"],
      ["tools/build.js", "tools-build"],
    ];
    for (const [file, text] of files)
      writeFileSync(join(dir, file), `console.log(${JSON.stringify(text)});\n`);
    const out = async (script: string) => (await execa("node", [script], { cwd: dir })).stdout;
    expect(await out("scripts/pkg")).toBe("pkg-main");
    expect(await out("scripts/both")).toBe("both-index");
    expect(await out("scripts/linked.js")).toBe("tools-build");
  });
});
