/**
 * verification-run-changes-a-tracked-file-with-a-non-utf8-name (session-25 review of the overlay
 * reader, ADR 0040/0068). A change commits a file whose name is not valid UTF-8 (`src/h\xff.js`,
 * or a folder `d\xff/`; git stores any bytes) and a test run rewrites it, so the suite sees other
 * bytes than the tree devflow commits (the ADR 0040 "repair before the other tests load it"), or
 * removes the folder and makes it again (deletion by an opaque folder). Code under test reaches
 * such a name easily: a Buffer path, or a tracked symlink `config.json -> c\xff.json` it writes
 * through (the symlink itself is never copied up).
 *
 * Cause: both readers of what a run changed walked the checkout by names decoded as UTF-8 strings:
 * an invalid byte became U+FFFD, the decoded name named no file, and the entry was taken for a new
 * untracked file (checkoutOverlayChanges' lower-layer lstat, ENOENT) or skipped (the stat fallback's
 * lstat; a folder's whole subtree was skipped by its readdir's catch). No tamper failure: the run
 * passed. Fix: both walk names as bytes (readdir with `encoding: "buffer"`, paths joined as bytes),
 * and name them in the report decoded (U+FFFD where invalid).
 *
 *     npx vitest run test/adversarial/review/tracked-file-with-a-non-utf8-name-attack25.test.ts
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../../../src/process/mount-namespace.js";
import { runInCheckout, verifyCheckoutLayout } from "../../support/verify-checkout-layout.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `<dir>/<name with a 0xff byte><rest>` as a byte path. */
const withFF = (dir: string, name: string, rest = ""): Buffer =>
  Buffer.concat([Buffer.from(`${dir}/${name}`), Buffer.from([0xff]), Buffer.from(rest)]);

/** A verification checkout holding `src/h\xff.js`, `d\xff/inner.js` and `config.json -> c\xff.json`. */
function layout() {
  const at = verifyCheckoutLayout(
    dirs,
    "devflow-non-utf8-",
    { "src/a.js": "export const a = 1;\n" },
    "regression",
  );
  writeFileSync(withFF(at.checkout, "src/h", ".js"), "broken\n");
  mkdirSync(withFF(at.checkout, "d"));
  writeFileSync(withFF(at.checkout, "d", "/inner.js"), "broken\n");
  writeFileSync(withFF(at.checkout, "c", ".json"), '{"broken":true}\n');
  symlinkSync(Buffer.from([0x63, 0xff, ...Buffer.from(".json")]), join(at.checkout, "config.json"));
  return at;
}

/** A node command, written into the user's repo (visible, read-only to the run). */
function node(repo: string, code: string): string {
  const file = join(repo, `probe-${Math.random().toString(36).slice(2)}.cjs`);
  writeFileSync(
    file,
    `const fs = require("node:fs");\nconst ff = (s, r = "") => Buffer.concat([Buffer.from(s), Buffer.from([0xff]), Buffer.from(r)]);\n${code}`,
  );
  return `node ${JSON.stringify(file)}`;
}

const attacks: [string, string, RegExp][] = [
  [
    "rewrites src/h\\xff.js by a byte path",
    `fs.writeFileSync(ff("src/h", ".js"), "repaired\\n");`,
    /src\/h\uFFFD\.js/,
  ],
  [
    "rewrites c\\xff.json through the tracked symlink config.json",
    `fs.writeFileSync("config.json", '{"broken":false}\\n');`,
    /c\uFFFD\.json/,
  ],
  [
    "rewrites d\\xff/inner.js",
    `fs.writeFileSync(ff("d", "/inner.js"), "repaired\\n");`,
    /d\uFFFD\/inner\.js/,
  ],
];

for (const overlay of [true, false]) {
  describe.runIf(!overlay || mountNamespaceWorks())(
    `a verification run changes a tracked file with a non-UTF-8 name (${overlay ? "checkout overlay" : "stat fallback"})`,
    () => {
      for (const [what, code, named] of attacks)
        it(`fails as tamper when the run ${what}`, async () => {
          const at = layout();
          const run = await runInCheckout(at, node(at.repo, code), { overlay });
          expect(run.exitCode, run.output).toBe(0);
          expect(run.failure).toMatch(/^tamper: the test run changed tracked file/);
          expect(run.failure).toMatch(named);
        }, 30_000);

      it("fails as tamper when the run removes d\\xff and makes it again (its file is gone)", async () => {
        const at = layout();
        const code = `fs.rmSync(ff("d"), { recursive: true }); fs.mkdirSync(ff("d")); fs.writeFileSync(ff("d", "/new.js"), "");`;
        const run = await runInCheckout(at, node(at.repo, code), { overlay });
        expect(run.exitCode, run.output).toBe(0);
        expect(run.failure).toMatch(/^tamper: the test run changed tracked file/);
        expect(run.failure).toMatch(/d\uFFFD\/inner\.js/);
      }, 30_000);

      it("fails as tamper when the run removes and makes again a folder whose long name holds a newline", async () => {
        // A name over 100 bytes goes into a pax `path` record; one read line by line was cut at
        // the newline, and the opaque marker was credited to another name.
        const at = layout();
        const long = `${"d".repeat(120)}\nz`;
        mkdirSync(join(at.checkout, long));
        writeFileSync(join(at.checkout, long, "inner.js"), "broken\n");
        const code = `const d = ${JSON.stringify(long)}; fs.rmSync(d, { recursive: true }); fs.mkdirSync(d);`;
        const run = await runInCheckout(at, node(at.repo, code), { overlay });
        expect(run.exitCode, run.output).toBe(0);
        expect(run.failure).toMatch(/^tamper: the test run changed tracked file/);
        expect(run.failure).toContain(`${long}/inner.js`);
      }, 30_000);

      it("still passes a run that only writes an untracked file with a non-UTF-8 name", async () => {
        const at = layout();
        const run = await runInCheckout(at, node(at.repo, `fs.writeFileSync(ff("src/new"), "");`), {
          overlay,
        });
        expect(run.exitCode, run.output).toBe(0);
        expect(run.failure).toBeNull();
      }, 30_000);
    },
  );
}
