import { describe, expect, it } from "vitest";
import { folderWith as repoWith } from "../../test/support/test-repo.js";
import { seamHelpers } from "./seam-helpers.js";

describe("seamHelpers: the test code a seam's files load (ADR 0019)", () => {
  it("walks ESM, CommonJS and TypeScript imports transitively, keeping test paths only", async () => {
    const repo = repoWith({
      "test/seam.test.mjs": [
        'import assert from "node:assert";',
        'import { parse } from "../src/lib.js";',
        'import { cases } from "./helpers/cases.mjs";',
        'import "./does-not-exist-yet.js";',
        'import { x } from "some-package";',
        "assert.ok(parse && cases && x);",
      ].join("\n"),
      "test/helpers/cases.mjs":
        'import data from "../fixtures/rows.json" with { type: "json" };\nexport const cases = data;\n',
      "test/fixtures/rows.json": "[1]\n",
      "test/legacy.test.cjs": 'const h = require("./support/h.cjs");\nmodule.exports = h;\n',
      "test/support/h.cjs": 'module.exports = require("./deeper.cjs");\n',
      "test/support/deeper.cjs": "module.exports = 1;\n",
      "test/typed.test.ts":
        'import { setup } from "./setup";\nconst n: number = setup();\nexport default n;\n',
      "test/setup.ts": "export function setup(): number { return 1; }\n",
      "src/lib.js": 'import "../test/helpers/never-walked-from-src.js";\nexport const parse = 1;\n',
      "test/helpers/never-walked-from-src.js": "export {};\n",
      "node_modules/some-package/index.js": "export const x = 1;\n",
    });
    const found = await seamHelpers(
      ["test/seam.test.mjs", "test/legacy.test.cjs", "test/typed.test.ts"],
      repo,
    );
    expect(found).toEqual({
      files: [
        "test/fixtures/rows.json",
        "test/helpers/cases.mjs",
        "test/setup.ts",
        "test/support/deeper.cjs",
        "test/support/h.cjs",
      ],
      unreadable: [],
      computedLoaders: [],
    });
  });

  it("counts test support kept beside the program, and not the program's own setup", async () => {
    const repo = repoWith({
      "test/seam.test.ts": [
        'import "../src/test-utils/cases";',
        'import "../src/__mocks__/db.js";',
        'import "../src/store.mock.ts";',
        'import "../jest.setup.js";',
        'import "../src/app.setup.ts";',
      ].join("\n"),
      "src/test-utils/cases.ts": "export {};\n",
      "src/__mocks__/db.js": "export {};\n",
      "src/store.mock.ts": "export {};\n",
      "jest.setup.js": "export {};\n",
      "src/app.setup.ts": "export {};\n",
    });
    expect((await seamHelpers(["test/seam.test.ts"], repo)).files).toEqual([
      "jest.setup.js",
      "src/__mocks__/db.js",
      "src/store.mock.ts",
      "src/test-utils/cases.ts",
    ]);
  });

  // Regression (self-review, stop 27): bundled as CommonJS (esbuild's default for node), an ESM
  // test with top-level await could not be read at all, so none of its helpers was protected (only
  // a caveat said so). Fix: ESM output. Also pins package.json `imports` aliases and `import()`.
  it("reads an ESM test with top-level await, a package.json #alias and a dynamic import", async () => {
    const repo = repoWith({
      "package.json": JSON.stringify({ type: "module", imports: { "#cases": "./test/helpers/cases.js" } }),
      "test/a.test.js":
        'import { c } from "#cases";\nconst d = await import("./helpers/dyn.js");\nconsole.log(c, d);\n',
      "test/helpers/cases.js": "export const c = 1;\n",
      "test/helpers/dyn.js": "export {};\n",
    });
    expect(await seamHelpers(["test/a.test.js"], repo)).toEqual({
      files: ["test/helpers/cases.js", "test/helpers/dyn.js"],
      unreadable: [],
      computedLoaders: [],
    });
  });

  it("names a file it cannot parse instead of passing over it silently", async () => {
    const repo = repoWith({
      "test/broken.test.js": "import { from\n",
      "test/ok.test.js": 'import "./h.js";\n',
      "test/h.js": "",
    });
    expect(await seamHelpers(["test/broken.test.js", "test/ok.test.js"], repo)).toEqual({
      files: ["test/h.js"],
      unreadable: ["test/broken.test.js"],
      computedLoaders: [],
    });
  });

  // Stop 31: a loader that requires every test file of its folder loaded a new one the attempt
  // added (test/adversarial/computed-loader-fakes-the-seam.test.ts).
  it("names the test code that loads by a computed name, and pins what a glob of it matches", async () => {
    const repo = repoWith({
      "test/all.js":
        'for (const f of require("node:fs").readdirSync(__dirname)) require(require("node:path").join(__dirname, f));\n',
      "test/dyn.test.mjs": "const name = process.env.X;\nawait import(name);\n",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a JS file that uses a template literal
      "test/glob.test.js": "require(`./cases/${process.env.CASE}.js`);\n",
      "test/concat.test.js": 'require("./more/" + process.env.CASE);\n',
      "test/cases/a.js": "",
      "test/more/b.js": "",
      "test/created.test.mjs":
        'import { createRequire } from "node:module";\nconst load = createRequire(import.meta.url);\nload("./h.js");\n',
      "test/plain.test.js": 'require("./h.js");\nimport("./h.js");\n',
      "test/h.js": "",
    });
    const seam = [
      "test/all.js",
      "test/dyn.test.mjs",
      "test/glob.test.js",
      "test/concat.test.js",
      "test/created.test.mjs",
      "test/plain.test.js",
    ];
    const found = await seamHelpers(seam, repo);
    expect(found.computedLoaders).toEqual([
      "test/all.js",
      "test/concat.test.js",
      "test/created.test.mjs",
      "test/dyn.test.mjs",
      "test/glob.test.js",
    ]);
    expect(found.files).toEqual(["test/cases/a.js", "test/h.js", "test/more/b.js"]);
    expect((await seamHelpers(["test/plain.test.js"], repo)).computedLoaders).toEqual([]);
  });

  // Review (stop 31): a seam entry not named like a test (`test.js`, `run-tests.js`) was made
  // external and never read; data loads and comments are no loaders; vitest's glob is one.
  it("reads a seam entry of any name, and tells loads of code from loads of data", async () => {
    const repo = repoWith({
      "test.js": 'for (const f of require("node:fs").readdirSync("test")) require("./test/" + f);\n',
      "test/data.test.js": [
        'const { join } = require("node:path");',
        'const cases = require(join(__dirname, "fixtures", "cases.json"));',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a JS file that uses a template literal
        "const more = require(`./fixtures/${process.env.SET}.json`);",
        "// createRequire(import.meta.url) is not used here",
        "module.exports = { cases, more };",
      ].join("\n"),
      "test/fixtures/cases.json": "[]\n",
      "test/globbed.test.ts":
        'const mods = import.meta.glob("./*.test.ts", { eager: true });\nexport { mods };\n',
    });
    // (its glob also matches test/globbed.test.ts, a loader itself)
    expect((await seamHelpers(["test.js"], repo)).computedLoaders).toContain("test.js");
    expect((await seamHelpers(["test/data.test.js"], repo)).computedLoaders).toEqual([]);
    expect((await seamHelpers(["test/globbed.test.ts"], repo)).computedLoaders).toEqual([
      "test/globbed.test.ts",
    ]);
  });
  // Stop 32: loads esbuild neither follows nor notes; each loaded a new test file the attempt added
  // on the real lane (test/adversarial/computed-loader-fakes-the-seam.test.ts).
  it.each([
    ["eval of require", 'eval("require")("./" + process.env.CASE);'],
    ["the Function constructor", 'new Function("n", "return require(n)")("./" + process.env.CASE);'],
    ["module.require", 'module.require("./" + process.env.CASE);'],
    ["process.mainModule", 'process.mainModule.require("./" + process.env.CASE);'],
    ["globalThis.require", 'globalThis["require"]("./" + process.env.CASE);'],
    ["require destructured from module", 'const { require: load } = module;\nload("./" + process.env.CASE);'],
    ["Module._load", 'const M = require("node:module");\nM._load("./" + process.env.CASE, module);'],
    ["module.constructor._load", 'module.constructor._load("./" + process.env.CASE, module);'],
    ["vm", 'import { runInThisContext } from "node:vm";\nrunInThisContext(process.env.SRC);'],
    ["a require.extensions hook", 'require.extensions[".check"] = require.extensions[".js"];'],
    // Review (stop 32): more shapes the first reading missed.
    ["require.call", 'require.call(null, "./" + process.env.CASE);'],
    ["require.apply", 'require.apply(null, ["./" + process.env.CASE]);'],
    ["webpack's require.context", 'const ctx = require.context(".", true, /\\.spec\\.js$/);'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a JS file that uses a template literal
    ["jest.requireActual of a template", "jest.requireActual(`./${process.env.CASE}`);"],
    ["vi.importActual of a variable", "await vi.importActual(process.env.CASE);"],
    [
      "mocha's programmatic addFile",
      'const Mocha = require("mocha");\nconst m = new Mocha();\nfor (const f of require("node:fs").readdirSync(__dirname)) m.addFile(f);',
    ],
    ["a loader package", 'require("require-all")({ dirname: __dirname });'],
    ["process.getBuiltinModule", 'process.getBuiltinModule("vm").runInThisContext(process.env.SRC);'],
    ["a loader after a string holding //", 'const u = "a //b"; eval(process.env.SRC);'],
    ["module.paths edited", 'module.paths.unshift(require("node:path").join(__dirname, "support"));'],
    ["NODE_PATH set", 'process.env.NODE_PATH = __dirname + "/support";'],
  ])("names %s as a computed loader", async (_, text) => {
    const repo = repoWith({ "test/all.js": `${text}\n` });
    expect((await seamHelpers(["test/all.js"], repo)).computedLoaders).toEqual(["test/all.js"]);
  });

  it("names no loader for words that only look like one", async () => {
    const repo = repoWith({
      "test/words.test.js": [
        'const { evaluate, isFunction } = require("./h.js");',
        'it("evaluates", () => evaluate(isFunction(myFunction())));',
        "const required = { requireAuth: true };",
        // Review (stop 32): words in comments and strings, and look-alike methods and keys.
        "/* we never eval user input; module.require is not used */",
        'describe("eval", () => {});',
        "const schema = { name: { type: String, require: true } };",
        'const region = config.require("region");',
        "const noop = new Function();",
        "const lint = { eval: false };",
        "s._load(); tpl._compile('{{a}}');",
        'jest.requireActual("../src/slug.js");',
        "module.exports = { required, schema, region, noop };",
      ].join("\n"),
      "test/h.js": "",
    });
    expect((await seamHelpers(["test/words.test.js"], repo)).computedLoaders).toEqual([]);
  });
});
