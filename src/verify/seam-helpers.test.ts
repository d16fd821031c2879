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
    });
  });
});
