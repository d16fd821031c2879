import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setupFileExposure } from "./seam-setup-exposure.js";

/**
 * setupFileExposure reads the runner configuration as the attempt left it (the lane cases are in
 * test/adversarial/review/scope-named-runner-config-runs-a-new-preload-attack35.test.ts).
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-setup-exposure-"));
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ mocha: { require: ["./src/preload.js"] } }));
  writeFileSync(join(dir, "src", "preload.js"), "// patches\n");
  writeFileSync(join(dir, "test", "slug.test.js"), "// seam\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const exposure = (changedFiles: string[], seamFiles = ["test/slug.test.js"]) =>
  setupFileExposure({
    checkoutDir: dir,
    seamFiles,
    seamCommand: "npx mocha test/slug.test.js",
    changedFiles,
  });

describe("setupFileExposure", () => {
  it("names a changed file the configuration runs before every test, whatever its folder", () => {
    expect(exposure(["package.json", "./src/preload.js"])).toContain(
      "runs file(s) the attempt changed before every test (src/preload.js)",
    );
  });

  it("says nothing when the preload is unchanged, a seam file, or left out as scope-named", () => {
    expect(exposure(["package.json"])).toBeNull();
    expect(exposure(["src/preload.js"], ["test/slug.test.js", "src/preload.js"])).toBeNull();
    expect(exposure([])).toBeNull();
  });

  it("reads a vitest config's setupFiles and a preload flag in the seam command", () => {
    writeFileSync(join(dir, "package.json"), "{}");
    writeFileSync(
      join(dir, "vitest.config.js"),
      "export default { test: { setupFiles: ['./src/preload.js'] } };",
    );
    expect(exposure(["src/preload.js"])).toContain("(src/preload.js)");
    rmSync(join(dir, "vitest.config.js"));
    expect(exposure(["src/preload.js"])).toBeNull();
    expect(
      setupFileExposure({
        checkoutDir: dir,
        seamFiles: ["test/slug.test.js"],
        seamCommand: "npx mocha -r ./src/preload.js test/slug.test.js",
        changedFiles: ["src/preload.js"],
      }),
    ).toContain("(src/preload.js)");
  });
});
