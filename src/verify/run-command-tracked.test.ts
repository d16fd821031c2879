/**
 * A verification run cannot neuter node:assert nor change the files it is judged on (ADR 0040).
 *
 * Bugs pinned (hostile review, session 11; ADR 0021 "Open" until this fix):
 * - test-run-repairs-a-tracked-file-and-puts-it-back: a test file that ran first patched the broken
 *   source in the verification checkout so the other test files passed, and restored it at exit;
 *   regression passed. Cause: the checkout was writable to the run. Fix: in the mount namespace the
 *   checkout is an overlay whose upper layer (on disk, hidden from the run) is read after the run:
 *   any copy-up or whiteout of a file that was in the checkout is a tamper failure by name.
 * - neutered-node-assert-in-a-verification-process: code under test replaced node:assert's
 *   functions in processes without devflow's canary. Fix: every verification command's node
 *   processes preload devflow's assert-freeze.mjs (NODE_OPTIONS --import) before user code.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runInCheckout, verifyCheckoutLayout } from "../../test/support/verify-checkout-layout.js";
import { mountNamespaceWorks } from "../process/mount-namespace.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A user repo with devflow's home and a verification checkout holding one "tracked" file. */
const layout = () =>
  verifyCheckoutLayout(
    dirs,
    "devflow-tracked-",
    { "src/a.js": "export const a = 1;\n", "README.md": "readme\n" },
    "regression",
  );

/** `node <script>`, the script written into the user's repo (read-only but visible to the run). */
function node(repo: string, code: string): string {
  const file = join(repo, `probe-${dirs.length}-${Math.random().toString(36).slice(2)}.cjs`);
  writeFileSync(file, code);
  return `node ${JSON.stringify(file)}`;
}

describe.runIf(mountNamespaceWorks())("a verification run behind the checkout overlay (ADR 0040)", () => {
  it("fails by name when the run changed a tracked file, even one it put back; the checkout keeps the verified bytes", async () => {
    const at = layout();
    const { repo, checkout, log } = at;
    const code = `const fs = require("node:fs");
      const before = fs.readFileSync("src/a.js", "utf8");
      fs.writeFileSync("src/a.js", "export const a = 2;\\n");
      fs.writeFileSync("src/a.js", before);
      fs.rmSync("README.md");`;
    const run = await runInCheckout(at, node(repo, code));
    expect(run.exitCode, run.output).toBe(0);
    expect(run.failure).toBe(
      "tamper: the test run changed tracked files README.md, src/a.js (a test run may write only untracked files)",
    );
    expect(readFileSync(join(checkout, "src", "a.js"), "utf8")).toBe("export const a = 1;\n");
    expect(existsSync(join(checkout, "README.md")), "the deletion was thrown away").toBe(true);
    expect(existsSync(`${log}.upper`), "the upper layer is removed").toBe(false);
  }, 30_000);

  it("names the tracked files below a directory the run removed and made again (an opaque directory)", async () => {
    const at = layout();
    const { repo } = at;
    const code = `const fs = require("node:fs");
      fs.rmSync("src", { recursive: true }); fs.mkdirSync("src"); fs.writeFileSync("src/other.js", "");`;
    const run = await runInCheckout(at, node(repo, code));
    expect(run.exitCode, run.output).toBe(0);
    expect(run.failure).toBe(
      "tamper: the test run changed tracked file src/a.js (a test run may write only untracked files)",
    );
  }, 30_000);

  it("lets a run write untracked files (temp dirs, coverage, .vite-temp) and throws them away", async () => {
    const at = layout();
    const { repo, checkout } = at;
    const code = `const fs = require("node:fs");
      fs.mkdirSync("coverage/tmp", { recursive: true }); fs.writeFileSync("coverage/tmp/out.json", "{}");
      fs.mkdirSync("src/.vite-temp"); fs.writeFileSync("src/.vite-temp/x.mjs", "");
      fs.writeFileSync("src/new.js", "");`;
    const run = await runInCheckout(at, node(repo, code));
    expect(run.exitCode, run.output).toBe(0);
    expect(run.failure).toBeNull();
    expect(existsSync(join(checkout, "coverage")), "untracked output does not reach the checkout").toBe(
      false,
    );
  }, 30_000);
});

describe("a verification run without the checkout overlay (no mount namespace: ADR 0040's fallback)", () => {
  it("fails by name when the run changed a tracked file and put it back (ctime), and passes untracked writes", async () => {
    const at = layout();
    const { repo } = at;
    const code = `const fs = require("node:fs");
      const before = fs.readFileSync("src/a.js");
      const t = fs.statSync("src/a.js");
      fs.writeFileSync("src/a.js", "export const a = 2;\\n");
      fs.writeFileSync("src/a.js", before);
      fs.utimesSync("src/a.js", t.atime, t.mtime);
      fs.mkdirSync("coverage"); fs.writeFileSync("coverage/out.json", "{}");`;
    const run = await runInCheckout(at, node(repo, code), { overlay: false });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.failure).toBe(
      "tamper: the test run changed tracked file src/a.js (a test run may write only untracked files)",
    );
    const clean = await runInCheckout(
      at,
      node(repo, `require("node:fs").writeFileSync("coverage/more.json", "{}");`),
      { overlay: false },
    );
    expect(clean.failure).toBeNull();
  }, 30_000);

  it("test-files-swap-the-source-directory-and-swap-it-back: fails by name (the files' stat is unchanged)", async () => {
    // Cause: the stat fallback compared non-directories only; renaming src/ away and back keeps
    // src/a.js's inode, mtime and ctime, so a repaired copy in a new src/ ran unseen. Fix
    // (ADR 0048): the checkout's directories are watched (inotify) during the run.
    const at = layout();
    const { repo } = at;
    const code = `const fs = require("node:fs");
      fs.renameSync("src", "src.orig"); fs.mkdirSync("src"); fs.writeFileSync("src/a.js", "export const a = 2;\\n");
      fs.rmSync("src", { recursive: true }); fs.renameSync("src.orig", "src");
      fs.writeFileSync("src/tmp", ""); fs.rmSync("src/tmp");`;
    const run = await runInCheckout(at, node(repo, code), { overlay: false });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.failure).toBe(
      "tamper: the test run moved tracked directory src (a test run may write only untracked files)",
    );
    // Untracked files and directories made and removed inside tracked directories are no finding.
    const clean = await runInCheckout(
      at,
      node(
        repo,
        `const fs = require("node:fs"); fs.mkdirSync("src/tmp/x", { recursive: true }); fs.writeFileSync("src/new.js", ""); fs.rmSync("src/tmp", { recursive: true });`,
      ),
      { overlay: false },
    );
    expect(clean.failure).toBeNull();
  }, 30_000);
});

describe("node:assert in a verification run (ADR 0040)", () => {
  it("refuses to replace an assertion, in strict and sloppy code, and through defineProperty", async () => {
    const at = layout();
    const { repo } = at;
    const code = `const a = require("node:assert"), s = require("node:assert/strict");
      const tries = [() => { a.strictEqual = () => {}; }, () => Object.defineProperty(s, "ok", { value: () => {} }), () => { if (!delete a.deepStrictEqual) throw new Error("delete refused"); }];
      for (const t of tries) { try { t(); console.log("NEUTERED"); } catch (e) { console.log("refused: " + e.message); } }
      try { a.strictEqual(1, 2); } catch (e) { console.log("still asserts: " + e.code); }`;
    const run = await runInCheckout(at, node(repo, code), { overlay: false });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).not.toContain("NEUTERED");
    expect(run.output).toContain(
      "refused: devflow: assert.strictEqual is frozen in verification runs; code under test may not replace node:assert (ADR 0040)",
    );
    expect(run.output).toContain("still asserts: ERR_ASSERTION");
  }, 30_000);
});
