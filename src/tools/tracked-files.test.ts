import { describe, expect, it } from "vitest";
import { globFilter } from "./tracked-files.js";

describe("globFilter", () => {
  it("does not match everything after the first file when used with Array#filter (picomatch returnObject bug)", () => {
    expect(["README.md", "docs/a.md", "src/x.ts"].filter(globFilter("src/**"))).toEqual(["src/x.ts"]);
  });

  it("matches file names anywhere for a pattern without a slash, dotfiles included", () => {
    expect(["a/.env", "b/c/.env", ".envrc"].filter(globFilter(".env"))).toEqual(["a/.env", "b/c/.env"]);
  });
});
