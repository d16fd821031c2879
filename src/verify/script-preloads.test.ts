/**
 * Regression (third hostile review, project-require-preload-reads-the-ledger-key-before-devflows-preload):
 * the base's test script `node --require=./scripts/setup.cjs --test` loads a file of the checkout
 * into the runner and every test process before devflow's preloads, and the coder may change it.
 * Cause: only the runner binaries were pinned on base, not the script's preload files. Fix: the
 * preload files are pinned with their bytes on base; a run over a checkout where one differs fails
 * as a tamper finding before its report is read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  changedPreloads,
  checkoutPreloads,
  pinPreloads,
  preloadArguments,
  preloadClosure,
} from "./script-preloads.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function checkout(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-preloads-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("script preloads", () => {
  it("reads every spelling of node's preload flags", () => {
    expect(
      preloadArguments(
        `node --require=./a.cjs -r ./b.cjs --import ./c.mjs --loader=./d.mjs --experimental-loader "./e f.mjs" --test --test-reporter=spec x.test.js`,
      ),
    ).toEqual(["./a.cjs", "./b.cjs", "./c.mjs", "./d.mjs", "./e f.mjs", "spec"]);
  });

  it("keeps files of the checkout, not packages or paths outside it", () => {
    const cwd = checkout({});
    expect(
      checkoutPreloads(
        `node -r ts-node/register -r ./scripts/setup.cjs --import ../outside.mjs --import=${join(cwd, "abs.mjs")} --test`,
        cwd,
      ),
    ).toEqual(["scripts/setup.cjs", "abs.mjs"]);
  });

  it("names a preload the attempt changed, added or removed, and nothing when the bytes are base's", () => {
    const base = checkout({ "scripts/setup.cjs": "// setup\n", "scripts/gone.cjs": "// gone\n" });
    const script = "node --require=./scripts/setup.cjs -r ./scripts/gone.cjs -r ./scripts/new.cjs --test";
    const pinned = pinPreloads(script, base);
    expect(pinned.map((p) => [p.path, p.sha256 === null])).toEqual([
      ["scripts/setup.cjs", false],
      ["scripts/gone.cjs", false],
      ["scripts/new.cjs", true],
    ]);
    expect(changedPreloads(pinned, script, base)).toEqual([]);
    const attempt = checkout({
      "scripts/setup.cjs": "// setup\nprocess.env;\n",
      "scripts/new.cjs": "// added\n",
    });
    expect(changedPreloads(pinned, script, attempt)).toEqual([
      "scripts/setup.cjs",
      "scripts/gone.cjs",
      "scripts/new.cjs",
    ]);
  });

  /**
   * Regression (review of stop 18): `node -r ./test/setup --test` loads test/setup.js, but the
   * literal path was pinned (absent: null) and an attempt's rewritten or added test/setup.js was
   * never compared. Fix: a --require value is resolved like node does, on base and again in the
   * attempt; a preload that resolves to a file base did not have is a change.
   */
  it("regression: a --require without its extension is resolved like node, and one base lacked counts as changed", () => {
    const script = "node -r ./test/setup --test";
    const base = checkout({ "test/setup.js": "// setup\n" });
    const pinned = pinPreloads(script, base);
    expect(pinned).toEqual([{ path: "test/setup.js", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(changedPreloads(pinned, script, checkout({ "test/setup.js": "// setup\n" }))).toEqual([]);
    expect(changedPreloads(pinned, script, checkout({ "test/setup.js": "// changed\n" }))).toEqual([
      "test/setup.js",
    ]);
    // Base resolves nothing; the attempt adds the file node would load.
    const bare = pinPreloads(script, checkout({}));
    expect(changedPreloads(bare, script, checkout({ "test/setup/index.js": "// added\n" }))).toEqual([
      "test/setup/index.js",
    ]);
  });

  it("pins a --test-reporter module of the checkout (node:test loads it in the runner)", () => {
    const cwd = checkout({ "reporter.mjs": "export default async function* () {}\n" });
    expect(
      checkoutPreloads("node --test --test-reporter=./reporter.mjs --test-reporter-destination=stdout", cwd),
    ).toEqual(["reporter.mjs"]);
  });

  /**
   * Regression (review of stop 18, ADR 0021 "Open" until session 14):
   * preload-helper-changed-by-the-attempt-runs-in-the-runner. The base's pinned preload
   * `scripts/setup.cjs` does `require("./helpers.cjs")`; only setup.cjs was pinned, so an attempt
   * that rewrote helpers.cjs ran its code in the runner (which holds the ledger key) and in every
   * test process before devflow's preloads. Fix: the files a pinned preload loads are pinned too,
   * transitively, resolved like node.
   */
  it("regression: preload-helper-changed-by-the-attempt-runs-in-the-runner: a preload's own helpers are pinned, transitively", () => {
    const files = {
      "scripts/setup.cjs":
        'const { join } = require("node:path");\nrequire("./helpers.cjs");\nrequire(join(__dirname, "paths"));\nrequire("some-package");\n',
      "scripts/helpers.cjs": 'module.exports = require("./deep/util");\n',
      "scripts/deep/util/index.js": 'import("../../esm.mjs");\n',
      "scripts/esm.mjs": 'import "./esm-dep.mjs";\nexport { x } from "./esm-reexport.mjs";\n',
      "scripts/esm-dep.mjs": "",
      "scripts/esm-reexport.mjs": "export const x = 1;\n",
      "scripts/paths.js": "module.exports = {};\n",
      "scripts/unrelated.cjs": "// not loaded\n",
      "node_modules/some-package/index.js": 'require("./x");\n',
      "src/index.js": "// the code under test\n",
    };
    const script = "node --require=./scripts/setup.cjs --test";
    const base = checkout(files);
    expect(preloadClosure(script, base).sort()).toEqual(
      [
        "scripts/setup.cjs",
        "scripts/helpers.cjs",
        "scripts/deep/util/index.js",
        "scripts/esm.mjs",
        "scripts/esm-dep.mjs",
        "scripts/esm-reexport.mjs",
        "scripts/paths.js",
      ].sort(),
    );
    const pinned = pinPreloads(script, base);
    expect(changedPreloads(pinned, script, checkout(files))).toEqual([]);
    // The helper, a file three requires deep, and an ESM re-export each changed.
    for (const path of ["scripts/helpers.cjs", "scripts/deep/util/index.js", "scripts/esm-reexport.mjs"])
      expect(changedPreloads(pinned, script, checkout({ ...files, [path]: "process.env;\n" }))).toEqual([
        path,
      ]);
    // A file that now wins node's resolution (deep/util.js before deep/util/index.js).
    expect(
      changedPreloads(pinned, script, checkout({ ...files, "scripts/deep/util.js": "// new\n" })),
    ).toEqual(["scripts/deep/util.js"]);
    // The code under test, a file nothing loads and packages are not the preload's: not pinned.
    expect(
      changedPreloads(
        pinned,
        script,
        checkout({ ...files, "src/index.js": "// fixed\n", "scripts/unrelated.cjs": "// changed\n" }),
      ),
    ).toEqual([]);
  });

  it("a preload that computes what it loads pins the loadable files beside it", () => {
    const files = {
      "test/setup.cjs": 'for (const name of ["a", "b"]) require("./" + name);\n',
      "test/a.cjs": "",
      "test/b.cjs": "",
      "test/sub/c.cjs": "",
    };
    expect(preloadClosure("node -r ./test/setup.cjs --test", checkout(files)).sort()).toEqual([
      "test/a.cjs",
      "test/b.cjs",
      "test/setup.cjs",
    ]);
  });
});
