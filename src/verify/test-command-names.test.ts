import { describe, expect, it } from "vitest";
import { filesTheTestCommandNames } from "./test-command-names.js";

describe("filesTheTestCommandNames", () => {
  it("names the files a command gives as words or option values", () => {
    const named = filesTheTestCommandNames(
      "vitest run --config ci/vitest.ci.mjs --setup=./ci/setup.mjs",
      null,
    );
    expect(named("ci/vitest.ci.mjs")).toBe(true);
    expect(named("ci/setup.mjs")).toBe(true);
    expect(named("vitest.config.mjs")).toBe(false);
  });

  it("follows npm test into base's scripts, and the scripts they run", () => {
    const scripts = {
      pretest: "node --import ./scripts/prepare.mjs",
      test: "npm run test:unit && echo done",
      "test:unit": "jest -c config/jest.unit.cjs",
      lint: "eslint -c config/eslint.cjs",
    };
    const named = filesTheTestCommandNames("npm test --silent", scripts);
    expect(named("scripts/prepare.mjs")).toBe(true);
    expect(named("config/jest.unit.cjs")).toBe(true);
    expect(named("config/eslint.cjs")).toBe(false);
  });

  it("leaves out test files, paths outside the repository and variables", () => {
    const named = filesTheTestCommandNames(
      "node --test-reporter=spec -r test/a.test.mjs -r ../x.mjs -r /etc/passwd -c $CONFIG",
      null,
    );
    expect(named("test/a.test.mjs")).toBe(false);
    expect(named("../x.mjs")).toBe(false);
    expect(named("etc/passwd")).toBe(false);
  });
});
