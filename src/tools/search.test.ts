import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import { searchTool } from "./search.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo({
    "src/cart.ts": "export function total(items) {\n  return items.reduce((a, b) => a + b.price, 0);\n}\n",
    "src/tax.ts": "// total(x) with tax\nexport const TAX = 0.2;\n",
    "docs/notes.md": "The Total is wrong (see cart.total)\n",
    "many.txt": Array.from({ length: 300 }, () => "hit").join("\n"),
  });
  await writeFile(join(repo.outside, "secret.ts"), "total secret\n");
  await symlink(join(repo.outside, "secret.ts"), join(repo.dir, "src/leak.ts"));
});
afterEach(() => repo.cleanup());

const search = (args: Record<string, unknown>) => searchTool.bind(repo.ctx()).invoke(args).then(String);

describe("search", () => {
  it("finds regex matches as path:line: text over the repository", async () => {
    const out = await search({ pattern: "total\\(", glob: "src/**" });
    expect(out.split("\n")).toEqual([
      '2 matches for /total\\(/ in files matching "src/**" (1 skipped: binary, over 1 MiB, or leading outside the worktree):',
      "src/cart.ts:1: export function total(items) {",
      "src/tax.ts:1: // total(x) with tax",
    ]);
  });

  it("matches literally and case-insensitively when asked", async () => {
    const out = await search({ pattern: "cart.total)", literal: true, case_insensitive: true });
    expect(out).toContain("docs/notes.md:1: The Total is wrong (see cart.total)");
  });

  it("bounds the hits and says there are more", async () => {
    const out = await search({ pattern: "^hit$", max_results: 5 });
    expect(out.split("\n")).toHaveLength(6);
    expect(out.split("\n")[0]).toMatch(/^First 5 matches .* there are more/);
  });

  it("answers an invalid regex with a refusal that suggests literal: true", async () => {
    expect(await search({ pattern: "total(" })).toMatch(
      /^Refused: The pattern is not a valid regular expression.*literal: true/,
    );
  });

  it("does not read through a symlink that leads outside the worktree", async () => {
    expect(await search({ pattern: "secret" })).not.toContain("total secret");
  });
});
