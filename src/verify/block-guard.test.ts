import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { blockGuard, GUARD_EXIT_CODE, guardTamper } from "./block-guard.js";

/*
 * The guard of a Verification block's node programs (ADR 0063): real node processes started with
 * the guard's environment, in a temp repository where `src/m.js` is the attempt's (changed) module
 * and `src/cli.js` is base's. The block's program is the ticket author's: it imports the module,
 * checks it, and fails with `process.exit(1)`; every attack below is the module keeping that check
 * from running and the program from failing.
 */

const root = mkdtempSync(join(tmpdir(), "devflow-block-guard-"));
mkdirSync(join(root, "src"));
writeFileSync(join(root, "package.json"), '{"type":"module"}\n');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The author's check, as a block writes it: the module must say "good". */
const CHECK = `const m = await import("./src/m.js");
if (m.verdict() !== "good") { console.error("BLOCK-FAILED"); process.exit(1); }
console.log("BLOCK-PASSED");`;

function run(
  module: string,
  options: { args?: string[]; changed?: string[] | "all"; entry?: string } = {},
): { code: number | null; output: string } {
  writeFileSync(join(root, "src/m.js"), module);
  const changed =
    options.changed === "all"
      ? Array.from({ length: 5000 }, (_, i) => `f${i}/${"x".repeat(20)}`)
      : (options.changed ?? ["src/m.js"]);
  const guard = blockGuard(root, changed);
  const args = options.args ?? ["--input-type=module", "-e", options.entry ?? CHECK];
  const r = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...guard.env, NODE_OPTIONS: guard.nodeOptions },
    timeout: 20_000,
  });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

const BAD = 'export const verdict = () => "bad";\n';
const GOOD = 'export const verdict = () => "good";\n';

function refused(r: { code: number | null; output: string }, why: RegExp): void {
  expect(r.output, r.output).not.toContain("BLOCK-PASSED");
  expect(r.code, r.output).toBe(GUARD_EXIT_CODE);
  expect(guardTamper(r.output, r.code), r.output).toMatch(why);
}

describe("the block guard refuses the attempt's code ending the block's node program early", () => {
  it("process.exit(0) in the changed module while the block imports it", () => {
    refused(run(`process.exit(0);\n${BAD}`), /^tamper: .*ended by .*src\/m\.js, a file the attempt changed/);
  });

  it("process.reallyExit(0), and process.exit handed to a timer (no program code on the stack)", () => {
    refused(run(`process.reallyExit(0);\n${BAD}`), /ended by .*src\/m\.js/);
    refused(
      run(`setTimeout(process.exit, 0, 0); await new Promise(() => {});\n${BAD}`),
      /no program code on the stack/,
    );
  });

  it("a top-level await that never settles after process.exitCode = 0 (node's own exit 13 overridden)", () => {
    refused(
      run(`process.exitCode = 0; await new Promise(() => {});\n${BAD}`),
      /entry module never finished evaluating/,
    );
  });

  it("a thrown error a handler swallows, so the process drains and exits 0", () => {
    refused(
      run(`process.on("uncaughtException", () => {}); throw new Error("stop the block");\n${BAD}`),
      /uncaught rejection a handler swallowed/,
    );
  });

  it("process.exit and process.emit stay the guard's: neutering the block's exit(1) throws, a replaced emit is still watched", () => {
    const neutered = run(`process.exit = () => {};\n${BAD}`);
    expect(neutered.output).toContain("process.exit is pinned");
    expect(neutered.output).not.toContain("BLOCK-PASSED");
    expect(neutered.code).not.toBe(0);
    refused(
      run(
        `const o = process.emit; process.emit = function (e, ...a) { return e === "exit" || e === "uncaughtExceptionMonitor" ? false : o.call(this, e, ...a); };
process.on("uncaughtException", () => {}); throw new Error("x");\n${BAD}`,
      ),
      /swallowed/,
    );
  });

  it("a made-up stack (Error.prepareStackTrace taken over) is refused, not believed", () => {
    refused(
      run(
        `Object.defineProperty(Error, "prepareStackTrace", { get: () => () => [], set() {} });\nprocess.exit(0);\n${BAD}`,
      ),
      /stack could not be read/,
    );
  });

  it("with too many changed files to list, every repository file counts as the attempt's", () => {
    refused(run(`process.exit(0);\n${BAD}`, { changed: "all" }), /ended by .*src\/m\.js/);
  });
});

describe("the block guard lets a program end on its own terms", () => {
  it("passes the block's own process.exit(0) at its end, a natural end, and fails its exit(1)", () => {
    expect(run(GOOD, { entry: `${CHECK}\nprocess.exit(0);` })).toMatchObject({ code: 0 });
    expect(run(GOOD)).toMatchObject({ code: 0 });
    const failed = run(BAD);
    expect(failed.code).toBe(1);
    expect(failed.output).toContain("BLOCK-FAILED");
    expect(guardTamper(failed.output, failed.code)).toBeNull();
  });

  it("passes an exit from a file base tracks (a tool's own process.exit, as tsc or npm do)", () => {
    writeFileSync(
      join(root, "src/cli.js"),
      'export function done() { console.log("BLOCK-PASSED"); process.exit(0); }\n',
    );
    const r = run(GOOD, {
      entry: 'const cli = await import("./src/cli.js"); setTimeout(() => cli.done(), 10);',
    });
    expect(r, r.output).toMatchObject({ code: 0 });
  });

  it("passes an entry script the attempt wrote that exits itself (the block runs the attempt's own program)", () => {
    writeFileSync(join(root, "check.mjs"), `${CHECK}\nprocess.exit(0);\n`);
    const r = run(GOOD, { args: ["check.mjs"], changed: ["src/m.js", "check.mjs"] });
    expect(r, r.output).toMatchObject({ code: 0 });
  });

  it("passes node's test runner and a CommonJS entry", () => {
    writeFileSync(join(root, "src/t.test.js"), 'import test from "node:test"; test("ok", () => {});\n');
    expect(run(GOOD, { args: ["--test", "src/t.test.js"] })).toMatchObject({ code: 0 });
    writeFileSync(
      join(root, "c.cjs"),
      'import("./src/m.js").then((m) => { if (m.verdict() !== "good") process.exit(1); });\n',
    );
    expect(run(GOOD, { args: ["c.cjs"] })).toMatchObject({ code: 0 });
  });

  it("does nothing without its environment (seam and regression runs)", () => {
    writeFileSync(join(root, "src/m.js"), `process.exit(0);\n${BAD}`);
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", CHECK], {
      cwd: root,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", NODE_OPTIONS: blockGuard(root, []).nodeOptions },
    });
    expect(r.status).toBe(0);
  });
});
