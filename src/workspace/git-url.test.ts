import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../../test/support/test-repo.js";
import { isGitUrl, redactUrl } from "./git-url.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("isGitUrl", () => {
  it.each([
    "https://github.com/acme/app.git",
    "http://example.com/repo",
    "ssh://git@example.com:2222/acme/app.git",
    "git://example.com/app",
    "file:///srv/git/app.git",
    "git@github.com:acme/app.git",
    "github.com:acme/app",
    "../elsewhere/app.git",
  ])("treats %s as a URL", (input) => {
    expect(isGitUrl(input)).toBe(true);
  });

  it.each(["", ".", "./app", "/home/me/app", "src/app", "C:\\work\\app"])(
    "treats %s as a local path",
    (input) => {
      expect(isGitUrl(input)).toBe(false);
    },
  );

  it("treats an existing local folder ending in .git as a path", () => {
    const dir = tempDir();
    dirs.push(dir);
    const local = join(dir, "repo.git");
    mkdirSync(local);
    expect(isGitUrl(local)).toBe(false);
    expect(isGitUrl(join(dir, "missing.git"))).toBe(true);
  });
});

describe("redactUrl", () => {
  it("hides credentials in a URL", () => {
    expect(redactUrl("https://user:ghp_secret@github.com/a/b.git")).toBe("https://***@github.com/a/b.git");
    expect(redactUrl("https://github.com/a/b.git")).toBe("https://github.com/a/b.git");
  });
});
