/**
 * Which command regression runs so that every test runs (ADR 0083): the runner's own "do not stop"
 * argument after the command's arguments, only where the installed runner knows it.
 *
 * Cause of the gate it pins (stop 44, found while building ADR 0083): vitest before 0.31 has no
 * `--bail` and answers it with "Unknown option", running nothing (seen with vitest 0.28.5), so
 * appending `--bail=0` to every vitest run would have turned every regression run of such a project
 * into an error: a correct fix rejected. Fix: each adapter names the first version that knows its
 * arguments; the version is read from the checkout's node_modules (the user's, read-only).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withEveryTestRun } from "../../src/verify/test-reports/every-test-run.js";
import {
  jestAdapter,
  mochaAdapter,
  pytestAdapter,
  vitestAdapter,
} from "../../src/verify/test-reports/index.js";
import { NO_SUITE_BAIL } from "../../src/verify/test-reports/mocha.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-every-test-run-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function installed(name: string, version: string): Promise<void> {
  await mkdir(join(dir, "node_modules", name), { recursive: true });
  await writeFile(join(dir, "node_modules", name, "package.json"), JSON.stringify({ name, version }));
}

describe("withEveryTestRun", () => {
  it("puts mocha's, jest's and vitest's arguments right after the invocation, pytest's after its own", async () => {
    await installed("mocha", "10.8.2");
    await installed("jest", "29.7.0");
    await installed("vitest", "4.1.12");
    expect(withEveryTestRun(mochaAdapter, "mocha --bail 'test/**/*.js' && eslint .", dir)).toBe(
      `mocha --no-bail --require '${NO_SUITE_BAIL}' --bail 'test/**/*.js' && eslint .`,
    );
    // jest's own `--bail`/`-b` goes, so none follows devflow's (the last one wins).
    expect(withEveryTestRun(jestAdapter, "jest -b --ci --bail=3", dir)).toBe("jest --bail=0 --ci");
    expect(withEveryTestRun(vitestAdapter, "vitest run", dir)).toBe("vitest run --bail=0");
    // pytest needs no install check: `--maxfail` is as old as pytest's command line.
    expect(withEveryTestRun(pytestAdapter, "python3 -m pytest -x tests | tee out.txt", dir)).toBe(
      "python3 -m pytest -x tests --maxfail=0 | tee out.txt",
    );
  });

  // Review, stop 44 (attack46): appended after the runner's arguments, the argument landed outside
  // the quoted script of `sh -c '… mocha --bail …'` (sh took it as $0) or in a `#` comment, so the
  // stop stayed on both sides. Right after the invocation it is where the report flags already are.
  it("reaches a runner inside a quoted sh -c script or before a comment", async () => {
    await installed("mocha", "10.8.2");
    await installed("vitest", "4.1.12");
    // The path's own quotes close and reopen the script's: sh gets the path unquoted, inside it
    // (as the report flags' path already is).
    expect(
      withEveryTestRun(mochaAdapter, `sh -c 'export TZ=UTC; mocha --bail "test/**/*.test.js"'`, dir),
    ).toBe(`sh -c 'export TZ=UTC; mocha --no-bail --require '${NO_SUITE_BAIL}' --bail "test/**/*.test.js"'`);
    expect(withEveryTestRun(mochaAdapter, 'mocha --bail "test/**/*.test.js" # every file', dir)).toBe(
      `mocha --no-bail --require '${NO_SUITE_BAIL}' --bail "test/**/*.test.js" # every file`,
    );
    // `run` right before the closing quote is not taken as part of the invocation, so the argument
    // goes before it, as the report flags do: vitest reads options before its command too.
    expect(withEveryTestRun(vitestAdapter, "sh -c 'export TZ=UTC; vitest run --bail=1'", dir)).toBe(
      "sh -c 'export TZ=UTC; vitest --bail=0 run'",
    );
  });

  it("leaves the command alone where the installed runner is older than the argument", async () => {
    await installed("mocha", "5.2.0");
    await installed("jest", "23.6.0");
    await installed("vitest", "0.28.5");
    for (const [adapter, command] of [
      [mochaAdapter, "mocha --bail"],
      [jestAdapter, "jest --bail"],
      [vitestAdapter, "vitest run"],
    ] as const)
      expect(withEveryTestRun(adapter, command, dir)).toBe(command);
  });

  it("the first version that knows the argument gets it", async () => {
    await installed("mocha", "6.0.0");
    await installed("jest", "24.0.0");
    await installed("vitest", "0.31.0");
    expect(withEveryTestRun(mochaAdapter, "mocha", dir)).toBe(`mocha --no-bail --require '${NO_SUITE_BAIL}'`);
    expect(withEveryTestRun(jestAdapter, "jest", dir)).toBe("jest --bail=0");
    expect(withEveryTestRun(vitestAdapter, "vitest run", dir)).toBe("vitest run --bail=0");
  });

  it("leaves the command alone where the runner is not installed in the checkout, or its version is unreadable", async () => {
    expect(withEveryTestRun(jestAdapter, "jest --bail", dir)).toBe("jest --bail");
    await mkdir(join(dir, "node_modules", "vitest"), { recursive: true });
    await writeFile(join(dir, "node_modules", "vitest", "package.json"), '{ "version": "latest" }');
    expect(withEveryTestRun(vitestAdapter, "vitest run", dir)).toBe("vitest run");
  });

  // Review, stop 44: the command's own `--bail` was kept (vitest refuses a second one), and a failure
  // base already had before the tests it stopped at hid those tests on base and on the attempt.
  it("vitest: the command's own --bail is taken out and replaced, a chained command's left alone", async () => {
    await installed("vitest", "4.1.12");
    expect(withEveryTestRun(vitestAdapter, "vitest run --bail=2 --reporter dot", dir)).toBe(
      "vitest run --bail=0 --reporter dot",
    );
    expect(withEveryTestRun(vitestAdapter, "vitest run --bail 2 test/", dir)).toBe(
      "vitest run --bail=0 test/",
    );
    expect(withEveryTestRun(vitestAdapter, 'vitest run "--bail=1" test/', dir)).toBe(
      "vitest run --bail=0 test/",
    );
    expect(withEveryTestRun(vitestAdapter, "npx vitest run --bail && other --bail 3", dir)).toBe(
      "npx vitest run --bail=0 && other --bail 3",
    );
  });
});
