import { describe, expect, it } from "vitest";
import { saysWhatTheTestCommandRuns } from "./test-command-recipes.js";

describe("saysWhatTheTestCommandRuns (review, stop 41)", () => {
  it.each([
    ["make test", "Makefile"],
    ["make -s -C sub test", "sub/Makefile"],
    ["make test", "mk/rules.mk"],
    ["CI=1 make check", "GNUmakefile"],
    ["tox -e py311", "tox.ini"],
    ["python3 -m tox", "tox.ini"],
    ["nox -s tests", "noxfile.py"],
    ["just test", "justfile"],
    ["./scripts/test.sh", "scripts/test.sh"],
    ["bash ci/test.sh --fast", "ci/test.sh"],
    ["npm ci && python3 run_tests.py", "run_tests.py"],
  ])("`%s`: %s says what it runs", (command, file) => {
    expect(saysWhatTheTestCommandRuns(command)(file)).toBe(true);
  });

  it.each([
    ["python3 -m pytest tests/test_a.py", "tests/test_a.py"],
    ["node --test test/a.test.js", "test/a.test.js"],
    ["pytest", "Makefile"],
    ["npm test", "tox.ini"],
    ["make test", "src/make.py"],
  ])("`%s`: %s does not", (command, file) => {
    expect(saysWhatTheTestCommandRuns(command)(file)).toBe(false);
  });
});
