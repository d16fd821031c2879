/**
 * Regression (stop 39; a limit ADR 0074 named, older than that stop). Cause: the seam runs with
 * base's copy of what base's test configuration imports (`test_config_imports`), but only the
 * configurations found by name in the folders up to a seam file were walked. A seam that names its
 * configuration by flag (`vitest run --config ci/vitest.ci.js`, `jest --config ci/jest.ci.js`) had
 * that file fingerprinted, while the shared file it imports was neither pinned nor judged: an
 * attempt that left src/slug.js buggy and gave `ci/*.shared.js` an alias (vitest) or a module mapper
 * (jest) onto a fixed copy **completed**. Fix: `testConfigImports` walks from the configurations
 * the seam command names by flag too (`configsNamedByFlag`, src/verify/seam-data-files.ts), so the
 * shared file is pinned and the seam runs with base's copy. Mutation: the flag-named configs left out
 * of the walk → both complete (red).
 * Real vitest and jest, real repos, the real lane with `command:` coders and a lenient critic.
 */
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import { attemptEnvelope, runnerRepoWith, seamLane, writingCoder } from "../../support/runner-lane.js";

const FIXED = "(t) => t.trim().toLowerCase().replace(/\\s+/g, '-')";

interface FlagCase {
  runner: "vitest" | "jest";
  seam: string;
  base: Record<string, string>;
  shared: string;
  files: Record<string, string[]>;
}

const CASES: FlagCase[] = [
  {
    runner: "vitest",
    seam: "npx vitest run --config ci/vitest.ci.js test/slug.test.js",
    base: {
      "ci/vitest.ci.js":
        "import { fileURLToPath } from 'node:url';\nimport shared from './vitest.shared.js';\nexport default { ...shared, root: fileURLToPath(new URL('..', import.meta.url)) };\n",
      "ci/vitest.shared.js": "export default { test: { testTimeout: 20000 } };\n",
    },
    shared: "ci/vitest.shared.js",
    files: {
      "src/fixed-slug.js": [`export const slugify = ${FIXED};`],
      "ci/vitest.shared.js": [
        "import { fileURLToPath } from 'node:url';",
        "export default {",
        "  test: { testTimeout: 20000 },",
        "  resolve: { alias: [{ find: '../src/slug.js', replacement: fileURLToPath(new URL('../src/fixed-slug.js', import.meta.url)) }] },",
        "};",
      ],
    },
  },
  {
    runner: "jest",
    seam: "npx jest --config ci/jest.ci.js test/slug.test.js",
    base: {
      "ci/jest.ci.js": "module.exports = { ...require('./jest.shared'), rootDir: '..' };\n",
      "ci/jest.shared.js": "module.exports = { testTimeout: 20000 };\n",
    },
    shared: "ci/jest.shared.js",
    files: {
      "src/fixed.js": [`module.exports = { slugify: ${FIXED} };`],
      "ci/jest.shared.js": [
        "module.exports = { testTimeout: 20000, moduleNameMapper: { '^\\.\\./src/slug\\.js$': '<rootDir>/src/fixed.js' } };",
      ],
    },
  },
];

describe("what a configuration named by the seam's --config flag imports is base's in the seam's run", () => {
  for (const c of CASES) {
    it(`${c.runner}: ${c.shared}, which the flag-named config imports, gets a redirect`, {
      timeout: 300_000,
    }, async () => {
      await ensureRunnerInstalled(c.runner);
      const repo = await runnerRepoWith(c.runner, c.base);
      const run = await seamLane(repo, c.seam, ["test/slug.test.js"], writingCoder(c.files), []);
      expect(run.error).toBeNull();
      const record = await run.store.read("iterator_run");
      expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
      expect(record?.readiness?.contract?.test_config_imports).toEqual([c.shared]);
      const seam = await attemptEnvelope(run, "seam");
      expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual([c.shared]);
    });
  }
});
