import { describe, expect, it } from "vitest";
import { folderWith } from "../../test/support/test-repo.js";
import { configuresTests, testConfigImports } from "./test-config-files.js";

let dir = "";

/** A folder holding `files` (removed when the test ends) as `dir`; its tracked paths. */
function repo(files: Record<string, string>): string[] {
  dir = folderWith(files, "devflow-config-imports-");
  return Object.keys(files);
}

describe("configuresTests", () => {
  it("counts runner, npm, transform, path-map and pytest configs, and nothing else", () => {
    const yes = ["vitest.config.ts", "web/.mocharc.json", "package.json", "tsconfig.base.json", "pytest.ini"];
    const no = ["src/config.js", "test/setup.js", "configs/base.json", "src/tsconfig.js"];
    expect(yes.filter(configuresTests)).toEqual(yes);
    expect(no.filter(configuresTests)).toEqual([]);
  });

  // Stop 39 and its review: pytest loads the `pytest11` plugins of every distribution on sys.path
  // (the checkout's root); the metadata folder may be a link, or named just `.dist-info`.
  it("counts Python package metadata, its folder's own entry (a link) included, in any case", () => {
    const yes = [
      "slugfix-1.0.dist-info/entry_points.txt",
      "slugfix-1.0.dist-info/METADATA",
      "slugfix-1.0.dist-info",
      ".dist-info/entry_points.txt",
      "vendor/Slugfix.EGG-INFO/entry_points.txt",
      "lib/fix-1.0.egg/EGG-INFO/entry_points.txt",
    ];
    const no = [
      "docs/entry_points.txt",
      "dist-info/entry_points.txt",
      "src/dist_info.py",
      "meta/entry_points.txt",
    ];
    expect(yes.filter(configuresTests)).toEqual(yes);
    expect(no.filter(configuresTests)).toEqual([]);
  });
});

// Review of stop 37: base's vitest.config.js imported a shared file whose name is no config's; an
// attempt that edited it ran the seam with its own alias. Mutation: testConfigImports returning [].
describe("testConfigImports: what base's test configuration loads besides the config files", () => {
  it("follows a script config's imports transitively and a JSON config's relative extends", async () => {
    const tracked = repo({
      "vitest.config.js":
        "import shared from './config/shared.js';\nexport default { ...shared, test: { setupFiles: ['./test/setup.js'] } };\n",
      "config/shared.js":
        "import { aliases } from './aliases.js';\nexport default { resolve: { alias: aliases } };\n",
      "config/aliases.js": "export const aliases = {};\n",
      "tsconfig.json": '// comments, as tsconfig allows\n{ "extends": "./configs/base.json" }\n',
      "configs/base.json": '{ "extends": "./strict", "compilerOptions": {} }\n',
      "configs/strict.json": "{}\n",
      "test/setup.js": "globalThis.x = 1;\n",
      "src/slug.js": "export const slugify = (t) => t;\n",
      "package.json": '{ "type": "module" }\n',
    });
    expect(await testConfigImports(dir, tracked, ["test/slug.test.js"])).toEqual([
      "config/aliases.js",
      "config/shared.js",
      "configs/base.json",
      "configs/strict.json",
    ]);
  });

  // Fourth review: a config that reads a settings file rather than importing it.
  it("takes the settings files a script config names by a literal path", async () => {
    const tracked = repo({
      "vitest.config.js":
        "import { readFileSync } from 'node:fs';\nconst s = JSON.parse(readFileSync('./config/test-settings.json', 'utf8'));\nexport default { test: s, build: { lib: { entry: 'src/main.ts' } } };\n",
      ".mocharc.cjs":
        "module.exports = { ...require('./mocha.base.js'), ...JSON.parse(require('fs').readFileSync(__dirname + '/mocha.settings.json', 'utf8')) };\n",
      "mocha.base.js": "module.exports = {};\n",
      "mocha.settings.json": "{}\n",
      "config/test-settings.json": "{}\n",
      "src/main.ts": "export {};\n",
    });
    expect(await testConfigImports(dir, tracked, ["test/slug.test.js"])).toEqual([
      "config/test-settings.json",
      "mocha.base.js",
      "mocha.settings.json",
    ]);
  });

  it("reads the configs of the seam's own folders only, not another package's", async () => {
    const tracked = repo({
      "packages/a/vitest.config.js": "import './shared-a.js';\nexport default {};\n",
      "packages/a/shared-a.js": "export {};\n",
      "packages/b/vitest.config.js": "import './shared-b.js';\nexport default {};\n",
      "packages/b/shared-b.js": "export {};\n",
    });
    expect(await testConfigImports(dir, tracked, ["packages/a/test/x.test.js"])).toEqual([
      "packages/a/shared-a.js",
    ]);
  });

  // Stop 39: the shared file a `--config` file imports took the attempt's copy. Mutation: the
  // seam command not read (`configsNamedByFlag` left out of the walk) → [].
  it("walks from a configuration the seam command names by flag, wherever it is", async () => {
    const tracked = repo({
      "ci/jest.ci.js": "module.exports = { ...require('./jest.shared'), rootDir: '..' };\n",
      "ci/jest.shared.js": "module.exports = {};\n",
      "ci/other.js": "module.exports = {};\n",
    });
    const seam = "npx jest --config ci/jest.ci.js test/slug.test.js";
    expect(await testConfigImports(dir, tracked, ["test/slug.test.js"], seam)).toEqual(["ci/jest.shared.js"]);
    expect(await testConfigImports(dir, tracked, ["test/slug.test.js"])).toEqual([]);
  });

  it("is empty when the configs load nothing of the repository", async () => {
    const tracked = repo({
      "vitest.config.js": "import { defineConfig } from 'vitest/config';\nexport default defineConfig({});\n",
      "tsconfig.json": '{ "extends": "@tsconfig/node20/tsconfig.json" }\n',
    });
    expect(await testConfigImports(dir, tracked, ["test/slug.test.js"])).toEqual([]);
  });
});
