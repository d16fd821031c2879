/**
 * Hostile review of ADR 0063's block guard (session 17, attack7): the guard let the attempt's code
 * end a Verification block's node program with exit 0 by calling process.exit from a frame it did
 * not recognise as the attempt's.
 *
 * Cause: the guard read only the top 200 frames, and counted every frame whose file was not in the
 * changed list as "program code, not the attempt's", including frames with no file at all (a
 * `data:` URL module, vm's `evalmachine.<anonymous>`) and the changed module loaded again under a
 * query (`import("./m.js?x")` names `/…/m.js?x`, not `/…/m.js`).
 *   - a recursion of 300 frames in a `data:` module, then process.exit(0), at import: the changed
 *     module's frame was below the 200 the guard read, so the block passed without its check;
 *   - a `data:` / vm / `?x` function handed to a timer while the block awaits: no changed frame.
 * Fix (block-exit-guard.cjs): the whole stack is read (stackTraceLimit = Infinity); a file URL's
 * query and fragment are cut before the lookup; a frame with no absolute file name (other than
 * `node -e`'s and piped stdin's inline entry) counts as the attempt's.
 * Still open (pinned below, positively, so it goes red the day it is closed): a function compiled
 * with vm or Module.prototype._compile under the absolute name of an unchanged file: the name a
 * frame carries is the caller's to choose (ADR 0063 "What the guard does not stop").
 *
 *     npx vitest run test/adversarial/review/block-guard-forged-frames.test.ts
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { blockGuard, GUARD_EXIT_CODE, guardTamper } from "../../../src/verify/block-guard.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "devflow-attack7-guard-")));
mkdirSync(join(root, "src"));
writeFileSync(join(root, "package.json"), '{"type":"module"}\n');
writeFileSync(join(root, "src/base.js"), "export const unchanged = true;\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The ticket author's checks: the module must say "good" (synchronously, or after awaiting it). */
const SYNC_CHECK = `const m = await import("./src/m.js");
if (m.verdict() !== "good") { console.error("BLOCK-FAILED"); process.exit(1); }
console.log("BLOCK-PASSED");`;
const ASYNC_CHECK = `const m = await import("./src/m.js");
if ((await m.verdict()) !== "good") { console.error("BLOCK-FAILED"); process.exit(1); }
console.log("BLOCK-PASSED");`;
/** A verdict that takes a moment, as an async function under test does: the attack's timer wins. */
const SLOW_BAD =
  'export const verdict = async () => { await new Promise((r) => setTimeout(r, 100)); return "bad"; };\n';

function run(module: string, entry: string, args?: string[]): { code: number | null; output: string } {
  writeFileSync(join(root, "src/m.js"), module);
  const guard = blockGuard(root, ["src/m.js"]);
  const r = spawnSync(process.execPath, args ?? ["--input-type=module", "-e", entry], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...guard.env, NODE_OPTIONS: guard.nodeOptions },
    timeout: 20_000,
  });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

function refused(r: { code: number | null; output: string }): void {
  expect(r.output, r.output).not.toContain("BLOCK-PASSED");
  expect(r.code, r.output).toBe(GUARD_EXIT_CODE);
  expect(guardTamper(r.output, r.code), r.output).toMatch(/^tamper: .*ended by /);
}

describe("the block guard sees the attempt's frame whatever it hides behind", () => {
  it("block-guard-sees-no-changed-frame-under-a-deep-recursion: 300 data: frames, then exit(0) at import", () => {
    const module = `const { r } = await import("data:text/javascript,export function r(n) { if (n === 0) process.exit(0); r(n - 1); }");
r(300);
export const verdict = () => "bad";\n`;
    refused(run(module, SYNC_CHECK));
    // Frames named after an unchanged file (vm's filename, open below) cannot bury it either.
    const forged = `import vm from "node:vm";
vm.runInThisContext("(function r(n) { if (n === 0) process.exit(0); r(n - 1); })(300)", { filename: ${JSON.stringify(join(root, "src/base.js"))} });
export const verdict = () => "bad";\n`;
    refused(run(forged, SYNC_CHECK));
  });

  it("block-guard-trusts-a-data-url-callback: process.exit(0) from a data: module's function on a timer", () => {
    const module = `const { r } = await import("data:text/javascript,export function r() { process.exit(0); }");
setTimeout(r, 0);
${SLOW_BAD}`;
    refused(run(module, ASYNC_CHECK));
  });

  it("block-guard-trusts-the-changed-module-loaded-with-a-query: m.js?x's function on a timer", () => {
    const module = `if (import.meta.url.includes("?")) globalThis.r = () => process.exit(0);
else { await import(import.meta.url + "?x"); setTimeout(globalThis.r, 0); }
${SLOW_BAD}`;
    refused(run(module, ASYNC_CHECK));
  });

  it("block-guard-trusts-a-vm-callback: a vm-compiled function (evalmachine.<anonymous>) on a timer", () => {
    const module = `import vm from "node:vm";
setTimeout(vm.runInThisContext("(function () { process.exit(0); })"), 0);
${SLOW_BAD}`;
    refused(run(module, ASYNC_CHECK));
  });

  it("still lets the block's inline entry (node -e, piped stdin) and a deep recursion of its own exit", () => {
    const good = 'export const verdict = () => "good";\n';
    const cjs =
      'import("./src/m.js").then((m) => { if (m.verdict() !== "good") process.exit(1); process.exit(0); });';
    expect(run(good, "", ["-e", cjs])).toMatchObject({ code: 0 });
    writeFileSync(join(root, "src/m.js"), good);
    const guard = blockGuard(root, ["src/m.js"]);
    const piped = spawnSync(process.execPath, [], {
      cwd: root,
      input: cjs,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ...guard.env, NODE_OPTIONS: guard.nodeOptions },
    });
    expect(piped.status, piped.stderr).toBe(0);
    const deep = `${SYNC_CHECK}\nfunction r(n) { if (n === 0) process.exit(0); r(n - 1); }\nr(1000);`;
    expect(run(good, deep)).toMatchObject({ code: 0 });
  });
});

describe("OPEN: a frame named after an unchanged file by its compiler (passes while the hole is open)", () => {
  // When this goes red the hole is closed: turn these into refusals and drop the ADR 0063 residual.
  it("block-guard-believes-a-forged-vm-filename: vm.runInThisContext(…, { filename: src/base.js }) on a timer", () => {
    const module = `import vm from "node:vm";
setTimeout(vm.runInThisContext("(function () { process.exit(0); })", { filename: ${JSON.stringify(join(root, "src/base.js"))} }), 0);
${SLOW_BAD}`;
    expect(run(module, ASYNC_CHECK)).toMatchObject({ code: 0 });
  });

  it("block-guard-believes-a-forged-module-compile: Module.prototype._compile under src/base.js", () => {
    const module = `import { createRequire } from "node:module";
const Module = createRequire(import.meta.url)("module");
const base = ${JSON.stringify(join(root, "src/base.js"))};
const m = new Module(base);
m._compile("module.exports = () => process.exit(0);", base);
setTimeout(m.exports, 0);
${SLOW_BAD}`;
    expect(run(module, ASYNC_CHECK)).toMatchObject({ code: 0 });
  });
});
