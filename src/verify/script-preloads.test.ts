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
import { changedPreloads, checkoutPreloads, pinPreloads, preloadArguments } from "./script-preloads.js";

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
    ).toEqual(["./a.cjs", "./b.cjs", "./c.mjs", "./d.mjs", "./e f.mjs"]);
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
    const pinned = pinPreloads(
      "node --require=./scripts/setup.cjs -r ./scripts/gone.cjs -r ./scripts/new.cjs --test",
      base,
    );
    expect(pinned.map((p) => [p.path, p.sha256 === null])).toEqual([
      ["scripts/setup.cjs", false],
      ["scripts/gone.cjs", false],
      ["scripts/new.cjs", true],
    ]);
    expect(changedPreloads(pinned, base)).toEqual([]);
    const attempt = checkout({
      "scripts/setup.cjs": "// setup\nprocess.env;\n",
      "scripts/new.cjs": "// added\n",
    });
    expect(changedPreloads(pinned, attempt)).toEqual([
      "scripts/setup.cjs",
      "scripts/gone.cjs",
      "scripts/new.cjs",
    ]);
  });
});
