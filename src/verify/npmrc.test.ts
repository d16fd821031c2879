/**
 * The one reader of npm's ini config (stop 51: `node-options` and `ignore-scripts` had a reader
 * each, and `ignore-scripts` ignored the user's config, which npm reads). Real files in a temp dir.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { npmIgnoresScripts } from "./npm-pre-scripts.js";
import { npmConfigValue } from "./npmrc.js";

const saved = process.env.npm_config_userconfig;
const dirs: string[] = [];
afterEach(() => {
  if (saved === undefined) delete process.env.npm_config_userconfig;
  else process.env.npm_config_userconfig = saved;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project with `project` as its .npmrc (none when null) and `user` as the user's config. */
function setup(project: string | null, user: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-npmrc-"));
  dirs.push(dir);
  if (project !== null) writeFileSync(join(dir, ".npmrc"), project);
  const userFile = join(dir, "user.npmrc");
  if (user !== null) writeFileSync(userFile, user);
  process.env.npm_config_userconfig = userFile;
  return dir;
}

describe("npm's config as verification reads it", () => {
  it("takes the project's value first, the last line that sets it, quotes off, _ and - alike", () => {
    const dir = setup(
      "node_options = \"--a\"\nfund=false\nnode-options='--max-old-space-size=4096'\n",
      "node-options=--user\n",
    );
    expect(npmConfigValue(dir, "node-options")).toBe("--max-old-space-size=4096");
    expect(npmConfigValue(dir, "node_options")).toBe("--max-old-space-size=4096");
  });

  it("falls back to the user's config; an empty value counts as unset", () => {
    expect(npmConfigValue(setup(null, "node-options=--user\n"), "node-options")).toBe("--user");
    expect(npmConfigValue(setup("node-options=\n", "node-options=--user\n"), "node-options")).toBe("--user");
    expect(npmConfigValue(setup(null, null), "node-options")).toBeNull();
  });

  it("ignore-scripts from the project's or the user's config, as npm reads both", () => {
    expect(npmIgnoresScripts(setup("ignore-scripts=true\n", null))).toBe(true);
    expect(npmIgnoresScripts(setup(null, "ignore-scripts = true\n"))).toBe(true);
    expect(npmIgnoresScripts(setup("ignore-scripts=false\n", "ignore-scripts=true\n"))).toBe(false);
    expect(npmIgnoresScripts(setup(null, null))).toBe(false);
  });
});
