import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import type { ToolContext } from "./define-tool.js";
import { editFileTool } from "./edit-file.js";

const SOURCE = [
  "export function total(items) {",
  "  let sum = 0;",
  "  for (const item of items) sum += item.price;",
  "  return sum;",
  "}",
  "",
  "export function count(items) {",
  "  let sum = 0;",
  "  for (const item of items) sum += 1;",
  "  return sum;",
  "}",
  "",
].join("\n");

let repo: TempRepo;
let ctx: ToolContext;
beforeEach(async () => {
  repo = await makeTempRepo({ "src/cart.js": SOURCE, "bin/data.bin": "ab\0cd" });
  ctx = repo.ctx();
});
afterEach(() => repo.cleanup());

const edit = (args: Record<string, unknown>) => editFileTool.bind(ctx).invoke(args).then(String);
const cart = () => readFile(join(repo.dir, "src/cart.js"), "utf8");

describe("edit_file", () => {
  it("replaces the one exact match and shows the edited lines", async () => {
    const out = await edit({
      path: "src/cart.js",
      old_string: "  for (const item of items) sum += item.price;\n  return sum;",
      new_string: "  for (const item of items) sum += item.price;\n  return Math.round(sum * 1.2);",
    });
    expect(out).toMatch(/^Edited src\/cart.js: replaced 2 line\(s\) at line 3 with 2 line\(s\)/);
    expect(out).toContain("4|   return Math.round(sum * 1.2);");
    expect(await cart()).toBe(SOURCE.replace("  return sum;", "  return Math.round(sum * 1.2);"));
  });

  it("refuses an ambiguous old_string, names the lines, and leaves the file unchanged", async () => {
    const out = await edit({
      path: "src/cart.js",
      old_string: "  let sum = 0;",
      new_string: "  let sum = 1;",
    });
    expect(out).toBe(
      'Refused: old_string occurs 2 times in "src/cart.js" (at lines 2, 8). Include more of the surrounding lines in old_string so that it matches exactly one place.',
    );
    expect(await cart()).toBe(SOURCE);
  });

  it("refuses an old_string that is not in the file and points at the near miss", async () => {
    const out = await edit({
      path: "src/cart.js",
      old_string: "    let sum = 0;\n    for (const item of items) sum += item.price;",
      new_string: "x",
    });
    expect(out).toMatch(/^Refused: old_string was not found in "src\/cart.js"\. .*including indentation/);
    expect(out).toContain("occurs at line 2, 8");
    expect(await cart()).toBe(SOURCE);
  });

  it("refuses identical strings, an empty old_string, a missing file and a binary file with what to do", async () => {
    expect(await edit({ path: "src/cart.js", old_string: "sum", new_string: "sum" })).toMatch(
      /^Refused: old_string and new_string are identical/,
    );
    expect(await edit({ path: "src/cart.js", old_string: "", new_string: "x" })).toMatch(
      /^Invalid arguments for edit_file:\n- old_string: old_string is empty.*write_file/,
    );
    expect(await edit({ path: "src/nope.js", old_string: "a", new_string: "b" })).toMatch(
      /^Refused: "src\/nope.js" does not exist.*To create a new file, use write_file\.$/,
    );
    expect(await edit({ path: "bin/data.bin", old_string: "ab", new_string: "x" })).toMatch(
      /^Refused: "bin\/data.bin" is a binary file/,
    );
  });

  it("matches a file with CRLF line ends and keeps them", async () => {
    const crlf = "a = 1\r\nb = 2\r\nc = 3\r\n";
    await writeFile(join(repo.dir, "win.txt"), crlf);
    const out = await edit({ path: "win.txt", old_string: "a = 1\nb = 2", new_string: "a = 1\nb = 20" });
    expect(out).toMatch(/^Edited win.txt/);
    expect(await readFile(join(repo.dir, "win.txt"), "utf8")).toBe("a = 1\r\nb = 20\r\nc = 3\r\n");
  });

  it("deletes text with an empty new_string", async () => {
    const out = await edit({
      path: "src/cart.js",
      old_string: "export function count",
      new_string: "function count",
    });
    expect(out).toMatch(/^Edited/);
    await edit({ path: "src/cart.js", old_string: "\nfunction count(items) {\n", new_string: "" });
    expect(await cart()).not.toContain("function count");
  });

  it("refuses paths outside the worktree and inside .git/", async () => {
    await writeFile(join(repo.outside, "other.js"), "let a = 1;\n");
    await symlink(join(repo.outside, "other.js"), join(repo.dir, "other.js"));
    expect(await edit({ path: "../outside/other.js", old_string: "1", new_string: "2" })).toMatch(
      /^Refused: .*climbs out/,
    );
    expect(await edit({ path: "other.js", old_string: "1", new_string: "2" })).toMatch(
      /^Refused: .*symlink to a location outside/,
    );
    expect(await edit({ path: ".git/HEAD", old_string: "main", new_string: "evil" })).toMatch(
      /^Refused: .*inside \.git\//,
    );
    expect(await readFile(join(repo.outside, "other.js"), "utf8")).toBe("let a = 1;\n");
    expect(await readFile(join(repo.dir, ".git/HEAD"), "utf8")).toContain("main");
  });
});
