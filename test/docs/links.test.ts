// Bug pinned (issue 11, "dead links (README → `../shared/...`, comments citing files that are not
// in the repository)"): the product's documents must stand alone. Every relative link in the
// repository's markdown resolves to a file or folder inside the repository, and no file cites the
// design folder that lives beside the repository. Links are found with a pattern after fenced and
// inline code are removed (a test-only reading of markdown; no markdown parser is a dependency).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

const tracked = (pattern: string[]): string[] =>
  execFileSync("git", ["ls-files", "-z", "--", ...pattern], { cwd: PACKAGE_ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(PACKAGE_ROOT, f)));

/** Relative link targets of a markdown text (without their #anchor), code removed first. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1] ?? m[2] ?? "")
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => decodeURIComponent(target.split("#")[0] ?? ""));
}

describe("the repository's documents stand alone", () => {
  it("reads links the way a markdown viewer does (the test's own premise)", () => {
    expect(
      relativeLinks(
        'See [a](docs/a.md#x), [b](<../b c.md>), [c](https://x.org) and [d](#top).\n`[e](no.md)`\n```\n[f](no.md)\n```\n[g](x%20y.md "title")',
      ),
    ).toEqual(["docs/a.md", "../b c.md", "x y.md"]);
  });

  it("every relative link in markdown leads to a file or folder inside the repository", () => {
    const broken: string[] = [];
    for (const file of tracked(["*.md"])) {
      for (const target of relativeLinks(readFileSync(join(PACKAGE_ROOT, file), "utf8"))) {
        const path = resolve(PACKAGE_ROOT, dirname(file), target);
        const rel = relative(PACKAGE_ROOT, path);
        if (rel.startsWith("..") || !existsSync(path)) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("no file cites the design folder beside the repository", () => {
    const citing = tracked(["*.md", "*.ts", "*.mjs", "*.cjs", "*.js", "*.json"])
      .filter((f) => f !== "CHANGELOG.md" && f !== "test/docs/links.test.ts")
      .filter((f) =>
        /(?:\.\.\/)?shared\/(?:seeds|reference|design)\//.test(readFileSync(join(PACKAGE_ROOT, f), "utf8")),
      );
    expect(citing).toEqual([]);
  });
});
