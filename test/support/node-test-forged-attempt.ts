/**
 * The node:test project and attempt of attacks 58c and 59b (review 58 and 59): a test script of the
 * project's own shape, and an attempt that breaks `clamp` and has the module under test rewrite its
 * own test process's `test:fail` events to `test:pass` on node's channel to the runner (the forgery
 * the assertion ledger refuses, ADR 0048). Judged from the console, nothing would check it.
 */
import { expect } from "vitest";
import { commitAll } from "./build-step-project.js";
import {
  breakClamp,
  editFile,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "./fixture-regression.js";
import { failBecomesPass, rewriteRunnerEvents } from "./runner-channel-rewrite.js";

/** Module-level code for src/math.js: in a test-file process (not the seam's or the canary's), every `test:fail` event it sends becomes `test:pass`. */
export const V8_EVENT_FORGER = `import * as __v8 from "node:v8";
if (process.env.NODE_TEST_CONTEXT === "child-v8" && !process.argv.some((a) => a.endsWith("slug.test.js") || a.includes("canary"))) {
  ${rewriteRunnerEvents(failBecomesPass())}
  process.on("exit", () => process.exit(0));
}
`;

/** base taken with `script` as the test script, then the broken, forging attempt judged by regression. */
export async function forgedNodeTestAttempt(
  script: string,
  onTestFinished: (fn: () => Promise<void>) => void,
  { baseRuns = true }: { baseRuns?: boolean } = {},
) {
  const repo = await fixtureProject(
    "node-test",
    {
      "package.json": JSON.stringify({
        name: "fixture-node-test",
        private: true,
        type: "module",
        scripts: { test: script },
      }),
    },
    onTestFinished,
  );
  await commitAll(repo.dir, "script");
  const base = await fixtureBaseline(repo, "npm test");
  if (baseRuns) expect(base.error, base.error ?? "").toBeNull();
  await breakClamp(repo);
  await editFile(
    repo,
    "src/math.js",
    "export function add(a, b) {",
    `${V8_EVENT_FORGER}\nexport function add(a, b) {`,
  );
  return { base, run: await fixtureRegression(repo, "npm test", base, "test/slug.test.js", ["src/math.js"]) };
}
