/**
 * Review 58, attack 58b: one NUL in a comment of a source file, or a `binary` line in
 * .gitattributes, made git show that file's change as base85, and the critic (which reads only the
 * patch) never saw a special case for the seam's input. Fix: `diffTrees` shows as text every file
 * git calls binary whose content reads as text; real binaries and files past the size limit stay
 * git's binary patch. Real git on a real repository.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import { READABLE_MAX_BYTES, readsAsText } from "./readable-patch.js";
import { diffTrees } from "./snapshot.js";

const repos: string[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) removeDir(repo);
});

const SPECIAL_CASE = 'if (text === "Hello  World") return "hello-world";';

describe("a patch for reading (attack 58b)", () => {
  it("shows as text what git calls binary but reads as text; real binaries and large files stay binary", async () => {
    const repo = makeRepo({
      "src/slug.js": "export function slugify(text) {\n  return text;\n}\n",
      "src/other.js": "export const a = 1;\n",
      "notes.txt": "first\n",
      "big.js": "// big\n",
      "logo.png": "x",
    });
    repos.push(repo);
    const base = git(repo, "rev-parse", "HEAD^{tree}").trim();
    writeFiles(repo, {
      "src/slug.js": `// a comment \u0000\nexport function slugify(text) {\n  ${SPECIAL_CASE}\n  return text;\n}\n`,
      ".gitattributes": "notes.txt binary\n",
      "notes.txt": "second, hidden by an attribute\n",
      "src/other.js": "export const a = 2;\n",
      "big.js": `// \u0000\n${"// filler line of text\n".repeat(READABLE_MAX_BYTES / 20)}${SPECIAL_CASE}\n`,
    });
    writeFileSync(
      join(repo, "logo.png"),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0xfe, 1, 2, 3, 0, 0]),
    );
    git(repo, "add", "--all");
    const after = git(repo, "write-tree").trim();

    const { patch, files } = await diffTrees(repo, base, after);
    expect(files).toEqual([
      ".gitattributes",
      "big.js",
      "logo.png",
      "notes.txt",
      "src/other.js",
      "src/slug.js",
    ]);
    // The NUL-commented source and the attribute-hidden file, as text.
    expect(patch).toContain(`+  ${SPECIAL_CASE}`);
    expect(patch).toContain("+// a comment \u2400");
    expect(patch).not.toContain("\u0000");
    expect(patch).toContain("+second, hidden by an attribute");
    expect(patch).not.toMatch(/^Binary files a\/notes\.txt/m);
    // The rest as before: an ordinary change, and git's binary patch for a real binary and a file
    // past the limit (each named once).
    expect(patch).toContain("+export const a = 2;");
    expect(patch.match(/^GIT binary patch$/gm)).toHaveLength(2);
    expect(patch).toMatch(/^diff --git a\/logo\.png b\/logo\.png$/m);
    expect(patch).toMatch(/^diff --git a\/big\.js b\/big\.js$/m);
    expect(patch.match(/^diff --git a\/src\/slug\.js b\/src\/slug\.js$/gm)).toHaveLength(1);
  });

  it("judges text by the share of characters that are not text", () => {
    expect(readsAsText("const a = 1; // \u0000\n")).toBe(true);
    expect(readsAsText("\u0000\u0001")).toBe(false);
    expect(readsAsText(`${"\ufffd".repeat(20)}abc`)).toBe(false);
    expect(readsAsText("")).toBe(true);
  });
});
