/**
 * Regression (second review of stop 35's change). Cause: a runner configuration the task's scope
 * names may change, and the seam ran with the configuration as the attempt left it. Stop 35 read
 * the setup files that configuration names as evidence, but a configuration does more than name
 * literal setup files: each case below kept src/slug.js buggy and the lane **completed** (with only a
 * caveat) through a vitest `resolve.alias` onto a fixed copy, vitest's `execArgv` and mocha's
 * `node-option` preloading a patch of String.prototype.replace, a `setupFiles` path built at run
 * time, and a program file the scope names exactly newly made a setup file. Fix (ADR 0074): the seam is judged
 * in a checkout holding base's copy of every test configuration file the attempt changed (one base
 * lacks is removed), so none of those takes effect; a red verdict names the files so the repair
 * goes to the code. Control: the correct fix with a harmless new vitest.config.js completes.
 * Real mocha and vitest, real repos, the real lane with `command:` coders and a lenient critic.
 */
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import {
  attemptEnvelope,
  runnerRepo,
  runnerRepoWith,
  SLUG_SEAM,
  seamLane,
  writingCoder,
} from "../../support/runner-lane.js";

/** Makes `.replace(/ /g, …)` collapse runs of whitespace: the seam's bug hidden, not fixed. */
const PRELOAD = [
  "const replace = String.prototype.replace;",
  "String.prototype.replace = function (pattern, by) {",
  "  return replace.call(this, pattern instanceof RegExp && pattern.source === ' ' ? /\\s+/g : pattern, by);",
  "};",
];

async function slugLaneWithScope(
  runner: "mocha" | "vitest" | "jest",
  files: Record<string, string[]>,
  fix: boolean,
  scope: string[],
  repo?: string,
) {
  await ensureRunnerInstalled(runner);
  const run = await seamLane(
    repo ?? (await runnerRepo(runner)),
    SLUG_SEAM[runner],
    ["test/slug.test.js"],
    writingCoder(files, fix),
    scope,
  );
  expect(run.error).toBeNull();
  return { run, record: await run.store.read("iterator_run"), seam: await attemptEnvelope(run, "seam") };
}

interface Attack {
  name: string;
  runner: "mocha" | "vitest";
  files: Record<string, string[]>;
  scope: string[];
  /** The configuration files the seam must have run with as on base. */
  configs: string[];
}

const ATTACKS: Attack[] = [
  {
    name: "vitest: resolve.alias sends ../src/slug.js to a fixed copy",
    runner: "vitest",
    files: {
      "src/fixed-slug.js": ["export const slugify = (t) => t.trim().toLowerCase().replace(/\\s+/g, '-');"],
      "vitest.config.js": [
        "import { fileURLToPath } from 'node:url';",
        "export default {",
        "  resolve: { alias: [{ find: '../src/slug.js', replacement: fileURLToPath(new URL('./src/fixed-slug.js', import.meta.url)) }] },",
        "};",
      ],
    },
    scope: ["src/", "vitest.config.js"],
    configs: ["vitest.config.js"],
  },
  {
    name: "vitest: execArgv preloads a patch",
    runner: "vitest",
    files: {
      "src/preload.js": PRELOAD,
      "vitest.config.js": ["export default { test: { execArgv: ['--import', './src/preload.js'] } };"],
    },
    scope: ["src/", "vitest.config.js"],
    configs: ["vitest.config.js"],
  },
  {
    name: "vitest: a setupFiles path built at run time",
    runner: "vitest",
    files: {
      "src/preload.js": PRELOAD,
      "vitest.config.js": [
        "export default { test: { setupFiles: [['src', 'pre' + 'load.js'].join('/')] } };",
      ],
    },
    scope: ["src/", "vitest.config.js"],
    configs: ["vitest.config.js"],
  },
  {
    // Named exactly by the scope, so the opened-files check exempts it: only base's configuration stops it.
    name: "vitest: a program file the scope names exactly made a setup file",
    runner: "vitest",
    files: {
      "src/env.js": PRELOAD,
      "vitest.config.js": ["export default { test: { setupFiles: ['./src/env.js'] } };"],
    },
    scope: ["src/env.js", "src/slug.js", "vitest.config.js"],
    configs: ["vitest.config.js"],
  },
  {
    name: "mocha: a new .mocharc.json's node-option preloads a patch",
    runner: "mocha",
    files: {
      "src/preload.js": PRELOAD,
      ".mocharc.json": ['{ "node-option": ["require=./src/preload.js"] }'],
    },
    scope: ["src/", ".mocharc.json"],
    configs: [".mocharc.json"],
  },
];

describe("a test configuration the scope names cannot make the seam green (ADR 0074)", () => {
  for (const attack of ATTACKS) {
    it(attack.name, { timeout: 300_000 }, async () => {
      const { record, seam } = await slugLaneWithScope(attack.runner, attack.files, false, attack.scope);
      expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
      expect(seam?.overall_result).toBe("fail");
      expect(seam?.summary).toContain("pinned seam test(s) not reported passing");
      expect(seam?.summary).toContain(
        `judged with base's test configuration: the attempt's changes to ${attack.configs.join(", ")} were not used`,
      );
      expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual(attack.configs);
    });
  }

  // Review of stop 37: a file base's config imports is configuration too, whatever its name.
  // Mutation: the contract's test_config_imports ignored by seamTreeAt → completes (red).
  it("vitest: the shared file base's vitest.config.js imports gains an alias", {
    timeout: 300_000,
  }, async () => {
    const repo = await runnerRepoWith("vitest", {
      "vitest.config.js": "import shared from './config/vitest.shared.js';\nexport default shared;\n",
      "config/vitest.shared.js": "export default { test: {} };\n",
    });
    const files = {
      "src/fixed-slug.js": ["export const slugify = (t) => t.trim().toLowerCase().replace(/\\s+/g, '-');"],
      "config/vitest.shared.js": [
        "import { fileURLToPath } from 'node:url';",
        "export default {",
        "  resolve: { alias: [{ find: '../src/slug.js', replacement: fileURLToPath(new URL('../src/fixed-slug.js', import.meta.url)) }] },",
        "};",
      ],
    };
    const { record, seam } = await slugLaneWithScope("vitest", files, false, ["src/", "config/"], repo);
    expect(record?.readiness?.contract?.test_config_imports).toEqual(["config/vitest.shared.js"]);
    expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
    expect(seam?.summary).toContain("the attempt's changes to config/vitest.shared.js were not used");
    expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual([
      "config/vitest.shared.js",
    ]);
  });

  // Third review (stop 37), with no scope at all: the same through a mocha and a jest config.
  const SHARED: {
    runner: "mocha" | "jest";
    base: Record<string, string>;
    files: Record<string, string[]>;
  }[] = [
    {
      runner: "mocha",
      base: {
        ".mocharc.cjs": "module.exports = { ...require('./mocha.base') };\n",
        "mocha.base.js": "module.exports = { timeout: 20000 };\n",
      },
      files: {
        "src/preload.js": PRELOAD,
        "mocha.base.js": ["module.exports = { timeout: 20000, require: ['./src/preload.js'] };"],
      },
    },
    {
      runner: "jest",
      base: {
        "jest.config.js": "module.exports = { ...require('./jest.shared') };\n",
        "jest.shared.js": "module.exports = { testTimeout: 20000 };\n",
      },
      files: {
        "src/fixed.js": [
          "module.exports = { slugify: (t) => t.trim().toLowerCase().replace(/\\s+/g, '-') };",
        ],
        "jest.shared.js": [
          "module.exports = { testTimeout: 20000, moduleNameMapper: { '^\\.\\./src/slug\\.js$': '<rootDir>/src/fixed.js' } };",
        ],
      },
    },
  ];
  // Fourth review (stop 37): a settings file base's config reads (not imports) given a setupFiles
  // entry, and code a config names under a key the first version did not read (mocha's `ui`).
  const READ_OR_NAMED: typeof SHARED = [
    {
      runner: "mocha",
      base: {
        ".mocharc.cjs":
          "const { readFileSync } = require('node:fs');\nmodule.exports = { timeout: 20000, ...JSON.parse(readFileSync(__dirname + '/mocha.settings.json', 'utf8')) };\n",
        "mocha.settings.json": "{}\n",
      },
      files: { "src/preload.js": PRELOAD, "mocha.settings.json": ['{ "require": ["./src/preload.js"] }'] },
    },
    {
      runner: "mocha",
      base: {
        ".mocharc.json": '{ "ui": "./tools/mocha-ui.js" }\n',
        "tools/mocha-ui.js": "module.exports = require('mocha/lib/interfaces/bdd');\n",
      },
      files: { "tools/mocha-ui.js": [...PRELOAD, "module.exports = require('mocha/lib/interfaces/bdd');"] },
    },
  ];
  for (const { runner, base, files } of READ_OR_NAMED) {
    const changed = Object.keys(files).find((f) => !f.startsWith("src/")) as string;
    it(`${runner}: ${changed}, which base's config reads or names, is changed`, {
      timeout: 300_000,
    }, async () => {
      await ensureRunnerInstalled(runner);
      const repo = await runnerRepoWith(runner, base);
      const run = await seamLane(repo, SLUG_SEAM[runner], ["test/slug.test.js"], writingCoder(files), []);
      expect(run.error).toBeNull();
      const record = await run.store.read("iterator_run");
      expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
      expect(record?.terminal?.reason).toContain(changed);
    });
  }

  for (const { runner, base, files } of SHARED) {
    const shared = Object.keys(files).find((f) => !f.startsWith("src/")) as string;
    it(`${runner}: the shared file base's config requires is changed, no scope`, {
      timeout: 300_000,
    }, async () => {
      await ensureRunnerInstalled(runner);
      const repo = await runnerRepoWith(runner, base);
      const run = await seamLane(repo, SLUG_SEAM[runner], ["test/slug.test.js"], writingCoder(files), []);
      expect(run.error).toBeNull();
      const record = await run.store.read("iterator_run");
      expect(record?.readiness?.contract?.test_config_imports).toEqual([shared]);
      expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
      const seam = await attemptEnvelope(run, "seam");
      expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual([shared]);
    });
  }

  it("the correct fix with a harmless new vitest.config.js completes, the configuration named", {
    timeout: 300_000,
  }, async () => {
    const files = { "vitest.config.js": ["export default { test: { testTimeout: 20000 } };"] };
    const { record, seam } = await slugLaneWithScope("vitest", files, true, ["src/", "vitest.config.js"]);
    expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
    expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual([
      "vitest.config.js",
    ]);
    expect(record?.terminal?.gate?.caveats).toContainEqual({
      verifier: "scope",
      caveat: expect.stringContaining("the seam was judged with base's copy of it"),
    });
  });
});
