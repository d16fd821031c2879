/**
 * Regression (stop 31): jest transforms the code it loads with the project's babel config
 * (babel-jest reads `babel.config.js`, `.babelrc` and package.json's `babel` by default). A coder
 * that left `src/slug.js` alone and added a `babel.config.js` whose plugin rewrote the bug's regex
 * as jest loaded the file made every test pass, seam and suite, while the committed `src/slug.js`
 * kept the bug; the lane completed (measured on the real lane). Fix: babel's and swc's config
 * files are runner configs (test-paths.ts `RUNNER_CONFIG`, package.json's `babel` key in
 * `packageTestConfig`), so changing one is a regression finding unless the scope names it, and
 * that finding is made without a test command too (regression fails instead of being skipped).
 * Mutations: the babel names removed → the first case completes; the no-command finding removed →
 * the second completes.
 *
 * Real jest (installed once per machine), real repos, the real lane with `command:` coders.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../reports/runner-fixture.js";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { attemptEnvelope, runnerRepo, slugLane } from "../support/runner-lane.js";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

/** Writes a babel config whose plugin turns the bug's `/ /g` into `/\s+/g` as jest loads src/slug.js. */
const REWRITES_AT_LOAD = `
import { writeFileSync } from "node:fs";
writeFileSync("babel.config.js", [
  "module.exports = { plugins: [() => ({ visitor: { RegExpLiteral(path) {",
  "  if (path.node.pattern === ' ') path.node.pattern = '\\\\\\\\s+';",
  "} } })] };",
].join("\\n") + "\\n");
console.log("Runs of whitespace become one dash.");
`;

/** The jest fixture without a test script: the lane finds no test command. */
async function repoWithoutTestCommand(): Promise<string> {
  const repo = await runnerRepo("jest");
  const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8")) as Record<string, unknown>;
  delete pkg.scripts;
  await writeFile(join(repo, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  await execa(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "no test script"],
    {
      cwd: repo,
    },
  );
  return repo;
}

describe.concurrent("a transform config rewriting the code as the runner loads it", () => {
  for (const [name, repo] of [
    ["with a test command", () => runnerRepo("jest")],
    ["without a test command", repoWithoutTestCommand],
  ] as const)
    it(
      `jest: a new babel.config.js fixing the bug at load time does not complete (${name})`,
      () =>
        limited(async () => {
          await ensureRunnerInstalled("jest");
          const run = await slugLane("jest", REWRITES_AT_LOAD, { repo: await repo() });
          expect(run.error).toBeNull();
          const record = await run.store.read("iterator_run");
          expect(record?.terminal?.verdict).toBe("exhausted");
          const regression = await attemptEnvelope(run, "regression");
          expect(regression?.overall_result).toBe("fail");
          expect(regression?.summary).toContain("the attempt changed babel.config.js (test runner config)");
        }),
      300_000,
    );
});
