import { describe, expect, it } from "vitest";
import { folderWith as repoWith } from "../../test/support/test-repo.js";
import { runnerSetupFiles, seamDataFiles } from "./seam-data-files.js";

describe("seamDataFiles: the test data a seam's code reads by name (ADR 0019, amendment 3)", () => {
  it("finds fixtures, case folders, root-relative data and snapshots; leaves program data and the suite alone", () => {
    const repo = repoWith({
      "test/unit/parse.test.js": [
        'import { readFileSync, readdirSync } from "node:fs";',
        'import { join } from "node:path";',
        'const expected = readFileSync(new URL("../fixtures/expected.txt", import.meta.url), "utf8");',
        'const cases = readdirSync(join(import.meta.dirname, "cases"));',
        'const golden = readdirSync(join(import.meta.dirname, "..", "golden"));',
        'const input = readFileSync("test/data/in.csv", "utf8");',
        'const table = readFileSync("src/table.json", "utf8");',
        'const missing = "fixtures/missing.json";',
        "const suite = `test`; const self = 'test/unit';",
        'const far = "../../../outside.json";',
        "expect(parse(input)).toMatchSnapshot();",
      ].join("\n"),
      "test/unit/__snapshots__/parse.test.js.snap": "exports[`x`] = `1`;\n",
      "test/fixtures/expected.txt": "ok\n",
      "test/unit/cases/a.json": "{}\n",
      "test/unit/cases/deeper/b.json": "{}\n",
      "test/data/in.csv": "a,b\n",
      "test/golden/out.txt": "ok\n",
      "test/other.test.js": "// another test of the suite\n",
      "test/unit/sibling.test.js": "// a test beside the seam\n",
      "src/table.json": "{}\n",
      "test/test_rows.py": 'HERE = Path(__file__).parent\nROWS = (HERE / "rows").glob("*.json")\n',
      "test/rows/one.json": "1\n",
    });
    expect(seamDataFiles(["test/unit/parse.test.js", "test/test_rows.py"], repo)).toEqual({
      files: [
        "test/data/in.csv",
        "test/fixtures/expected.txt",
        "test/golden/out.txt",
        "test/rows/one.json",
        "test/unit/__snapshots__/parse.test.js.snap",
        "test/unit/cases/a.json",
        "test/unit/cases/deeper/b.json",
      ],
      tooLarge: [],
    });
  });

  it("reports a named test folder over the limit instead of fingerprinting it", () => {
    const repo = repoWith({
      "test/big.test.js":
        'const all = readdirSync(join(__dirname, "corpus"));\nconst one = "fixtures/one.json";\n',
      "test/corpus/1.txt": "1",
      "test/corpus/2.txt": "2",
      "test/corpus/3/4.txt": "4",
      "test/fixtures/one.json": "1",
    });
    expect(seamDataFiles(["test/big.test.js"], repo, 2)).toEqual({
      files: ["test/fixtures/one.json"],
      tooLarge: ["test/corpus"],
    });
    expect(seamDataFiles(["test/big.test.js"], repo, 3).files).toEqual([
      "test/corpus/1.txt",
      "test/corpus/2.txt",
      "test/corpus/3/4.txt",
      "test/fixtures/one.json",
    ]);
  });

  it("does not list the seam's own files, and reads nothing from a binary file", () => {
    const repo = repoWith({
      "test/a.test.js": 'import "./b.test.js";\nconst f = "fixtures/x.json";\n',
      "test/b.test.js": '\0binary "fixtures/y.json"',
      "test/fixtures/x.json": "1",
      "test/fixtures/y.json": "1",
    });
    expect(seamDataFiles(["test/a.test.js", "test/b.test.js"], repo).files).toEqual(["test/fixtures/x.json"]);
  });

  it("runnerSetupFiles: the files the runner config runs with every test, whatever their name, not the tests it lists", () => {
    const repo = repoWith({
      "vitest.config.ts":
        'export default { test: { setupFiles: ["./test/setup.ts"], include: ["test/**/*.test.ts"] } };\n',
      "vite.config.js": 'export default { build: { lib: { entry: "src/index.ts", fileName: "x" } } };\n',
      ".mocharc.yml": "spec: test/listed.spec.js\nrequire:\n  - ./hooks.cjs\n",
      "package.json": JSON.stringify({
        name: "x",
        main: "test/not-a-script-key.js",
        scripts: {
          test: "node --import ./test/register.mjs --test test/other.test.js",
          pretest: "node -r test/r.cjs x",
        },
        jest: { setupFilesAfterEnv: ["<rootDir>/setup-env.js"] },
      }),
      ".npmrc": "node-options=--require ./test/npmrc-preload.cjs\n",
      "test/setup.ts": "",
      "test/listed.spec.js": "",
      "test/other.test.js": "",
      "test/r.cjs": "",
      "test/register.mjs": "",
      "test/not-a-script-key.js": "",
      "test/npmrc-preload.cjs": "",
      "hooks.cjs": "",
      "setup-env.js": "",
      "src/index.ts": "",
    });
    expect(runnerSetupFiles(repo)).toEqual([
      "hooks.cjs",
      "setup-env.js",
      "test/npmrc-preload.cjs",
      "test/r.cjs",
      "test/register.mjs",
      "test/setup.ts",
    ]);
    expect(runnerSetupFiles(repoWith({ "package.json": "{ not json" }))).toEqual([]);
  });

  // ADR 0074 (stop 37): a transform or resolver a config names by a string runs over every module
  // the tests load, so it is evidence too; the vite entry in the case above stays out. Mutation:
  // the transform/plugins keys dropped from SETUP_KEY → red.
  it("runnerSetupFiles: the code jest and babel pass every module through, named by a string", () => {
    const repo = repoWith({
      "jest.config.js": [
        "module.exports = {",
        "  transform: {",
        "    '^.+\\.js$': '<rootDir>/tools/transform.js',",
        "  },",
        "  resolver: './tools/resolver.js',",
        "};",
        "",
      ].join("\n"),
      "babel.config.js":
        "module.exports = { plugins: [['./tools/babel-plugin.js', { loose: true }]], presets: ['@babel/preset-env'] };\n",
      // Fourth review: code named under keys the first version did not read.
      ".mocharc.json": '{ "ui": "./tools/mocha-ui.js" }\n',
      "vitest.config.js": "export default { test: { snapshotSerializers: ['./tools/serializer.js'] } };\n",
      "tools/mocha-ui.js": "",
      "tools/serializer.js": "",
      "tools/transform.js": "",
      "tools/resolver.js": "",
      "tools/babel-plugin.js": "",
      "src/index.js": "",
    });
    expect(runnerSetupFiles(repo)).toEqual([
      "tools/babel-plugin.js",
      "tools/mocha-ui.js",
      "tools/resolver.js",
      "tools/serializer.js",
      "tools/transform.js",
    ]);
  });

  it("runnerSetupFiles: a package's own runner config between the root and the seam counts too", () => {
    const repo = repoWith({
      "packages/a/vitest.config.ts": 'export default { test: { setupFiles: ["./vitest-setup.js"] } };\n',
      "packages/a/vitest-setup.js": "",
      "packages/a/test/x.test.ts": "",
      "packages/b/jest.config.js": 'module.exports = { setupFiles: ["./b-setup.js"] };\n',
      "packages/b/b-setup.js": "",
    });
    expect(runnerSetupFiles(repo, ["packages/a/test/x.test.ts"])).toEqual(["packages/a/vitest-setup.js"]);
    expect(runnerSetupFiles(repo)).toEqual([]);
  });

  it("runnerSetupFiles: a config a script or the seam names with --config/-c counts, whole, wherever it is", () => {
    const repo = repoWith({
      "package.json": JSON.stringify({ scripts: { test: "jest --config config/jest.ci.js" } }),
      "config/jest.ci.js": 'module.exports = { rootDir: "..", setupFiles: ["<rootDir>/test/setup.js"] };\n',
      "test/setup.js": "",
      "tools/vitest.seam.mts": 'export default { test: { setupFiles: ["./seam-setup.ts"] } };\n',
      "tools/seam-setup.ts": "",
      "test/r.cjs": "",
    });
    expect(runnerSetupFiles(repo)).toEqual(["config/jest.ci.js", "test/setup.js"]);
    expect(
      runnerSetupFiles(repo, [], "npx vitest run -c tools/vitest.seam.mts -r test/r.cjs test/x.test.ts"),
    ).toEqual([
      "config/jest.ci.js",
      "test/r.cjs",
      "test/setup.js",
      "tools/seam-setup.ts",
      "tools/vitest.seam.mts",
    ]);
    // `sh -c '…'` names a command, not a config.
    expect(
      runnerSetupFiles(repoWith({ "package.json": JSON.stringify({ scripts: { test: "sh -c 'jest'" } }) })),
    ).toEqual([]);
  });
});
