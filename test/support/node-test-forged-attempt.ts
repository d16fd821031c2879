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

/** Module-level code for src/math.js: in a test-file process (not the seam's or the canary's), every `test:fail` event it sends becomes `test:pass`. */
export const V8_EVENT_FORGER = `import * as __v8 from "node:v8";
if (process.env.NODE_TEST_CONTEXT === "child-v8" && !process.argv.some((a) => a.endsWith("slug.test.js") || a.includes("canary"))) {
  const __write = process.stdout.write;
  const __h = __v8.serialize(0).subarray(0, 2);
  process.stdout.write = function (chunk, ...rest) {
    try {
      const b = Buffer.from(chunk);
      if (b.length > 6 && b[0] === __h[0] && b[1] === __h[1]) {
        const item = __v8.deserialize(b.subarray(6));
        if (item && item.type === "test:fail") {
          item.type = "test:pass";
          if (item.data && item.data.details) delete item.data.details.error;
          const body = __v8.serialize(item);
          const len = Buffer.alloc(4);
          len.writeUInt32BE(body.length);
          chunk = Buffer.concat([__h, len, body]);
        }
      }
    } catch {}
    return __write.call(this, chunk, ...rest);
  };
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
