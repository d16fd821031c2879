import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { saysWhatTheTestCommandRuns } from "./test-command-recipes.js";

/** A checkout holding `files` (path → text). */
function checkout(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-recipes-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("saysWhatTheTestCommandRuns (reviews, stop 41)", () => {
  it.each([
    ["make test", "Makefile"],
    ["make -s -C sub test", "sub/Makefile"],
    ["make -f build/test.make test", "build/test.make"],
    ["CI=1 make check", "GNUmakefile"],
    ["env CI=1 make test", "Makefile"],
    ["tox -e py311", "tox.ini"],
    ["tox -c ci/tox.ini", "ci/tox.ini"],
    ["python3 -m tox", "tox.ini"],
    ["nox -s tests", "noxfile.py"],
    ["just test", "justfile"],
    ["inv test", "tasks.py"],
    ["./scripts/test.sh", "scripts/test.sh"],
    ["bash ci/test.sh --fast", "ci/test.sh"],
    ["sh -c 'make test'", "Makefile"],
    ["npm ci && python3 run_tests.py", "run_tests.py"],
    ["python3 -W ignore run.py", "run.py"],
    ["node --import tsx scripts/run.ts", "scripts/run.ts"],
  ])("`%s`: %s says what it runs", (command, file) => {
    expect(saysWhatTheTestCommandRuns(command)(file)).toBe(true);
  });

  it.each([
    ["python3 -m pytest tests/test_a.py", "tests/test_a.py"],
    ["node --test test/a.test.js", "test/a.test.js"],
    // A test file the command runs is still the suite's (ADR 0019): a false rejection otherwise.
    ["python3 tests/test_app.py", "tests/test_app.py"],
    ["node test/index.js", "test/index.js"],
    ["python3 -W ignore run.py", "ignore"],
    ["pytest", "Makefile"],
    ["npm test", "tox.ini"],
    // Recipes are the runner's own folder's, not every Makefile or tasks.py of the repository.
    ["make test", "docs/Makefile"],
    ["inv test", "app/tasks.py"],
  ])("`%s`: %s does not", (command, file) => {
    expect(saysWhatTheTestCommandRuns(command)(file)).toBe(false);
  });

  it("follows npm test to package.json's scripts, and make to what its Makefile includes and runs", () => {
    const dir = checkout({
      "package.json": JSON.stringify({ scripts: { pretest: "bash ci/env.sh", test: "make test" } }),
      Makefile:
        "include common.mk\n-include .env\ntest:\n\t./scripts/test.sh tests/\n\tpython3 -m pytest tests/test_x.py\n",
    });
    const says = saysWhatTheTestCommandRuns("npm test --silent", dir);
    for (const file of ["ci/env.sh", "Makefile", "common.mk", ".env", "scripts/test.sh"])
      expect(says(file), file).toBe(true);
    expect(says("tests/test_x.py")).toBe(false);
    expect(saysWhatTheTestCommandRuns("npm test --silent")("Makefile")).toBe(false);
  });

  it("follows a test script that delegates to another (`npm run test:unit`), as runner detection does", () => {
    const dir = checkout({
      "package.json": JSON.stringify({ scripts: { test: "npm run test:unit", "test:unit": "make unit" } }),
      Makefile: "unit:\n\t./scripts/unit.sh\n",
    });
    const says = saysWhatTheTestCommandRuns("npm test --silent", dir);
    expect(says("Makefile")).toBe(true);
    expect(says("scripts/unit.sh")).toBe(true);
  });

  it("a JavaScript file a script runs that the checkout does not hold is the script (an attempt would add it)", () => {
    const dir = checkout({
      "package.json": JSON.stringify({
        scripts: { pretest: "node scripts/gen.js --env-file .env.test", test: "mocha" },
      }),
      ".env.test": "A=1\n",
    });
    const says = saysWhatTheTestCommandRuns("npm test", dir);
    expect(says("scripts/gen.js")).toBe(true);
    // The words after it are still read, as before: the option's value stays test configuration.
    expect(says(".env.test")).toBe(true);
    // Not a bare word that is no JavaScript file.
    expect(saysWhatTheTestCommandRuns("node build", dir)("build")).toBe(false);
  });
});
