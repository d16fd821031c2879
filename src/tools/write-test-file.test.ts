import { mkdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import type { ToolContext } from "./define-tool.js";
import { writeTestFileTool } from "./write-test-file.js";

let repo: TempRepo;
let ctx: ToolContext;
beforeEach(async () => {
  repo = await makeTempRepo({
    "src/cart.ts": "export const x = 1;\n",
    "tests/cart.test.ts": "// existing\n",
  });
  ctx = repo.ctx();
  await mkdir(join(repo.outside, "sub"));
  await symlink(join(repo.outside, "sub"), join(repo.dir, "tests/out"));
  await symlink(join(repo.outside, "target.txt"), join(repo.dir, "dangling.test.ts"));
});
afterEach(() => repo.cleanup());

const write = (args: Record<string, unknown>) => writeTestFileTool.bind(ctx).invoke(args).then(String);

describe("write_test_file", () => {
  it("creates a new file (and its directories) and records it in ctx.written", async () => {
    const out = await write({ path: "tests/repro/cart_total.test.ts", content: "test('x', () => {});\n" });
    expect(out).toMatch(/^Created tests\/repro\/cart_total.test.ts/);
    expect(await readFile(join(repo.dir, "tests/repro/cart_total.test.ts"), "utf8")).toBe(
      "test('x', () => {});\n",
    );
    expect([...ctx.written]).toEqual(["tests/repro/cart_total.test.ts"]);
  });

  it("refuses to overwrite an existing file and leaves it untouched", async () => {
    const out = await write({ path: "tests/cart.test.ts", content: "// replaced\n" });
    expect(out).toMatch(/^Refused: "tests\/cart.test.ts" already exists .* new file name/);
    expect(await readFile(join(repo.dir, "tests/cart.test.ts"), "utf8")).toBe("// existing\n");
    expect(ctx.written.size).toBe(0);
  });

  it("refuses a dangling symlink in place of the new file (writing would create a file outside)", async () => {
    expect(await write({ path: "dangling.test.ts", content: "x" })).toMatch(/^Refused: .*already exists/);
    await expect(readFile(join(repo.outside, "target.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses paths outside the worktree: ../, absolute elsewhere, through a symlinked directory", async () => {
    expect(await write({ path: "../evil.test.ts", content: "x" })).toMatch(/^Refused: .*climbs out/);
    expect(await write({ path: join(repo.outside, "evil.test.ts"), content: "x" })).toMatch(
      /^Refused: .*absolute path outside/,
    );
    expect(await write({ path: "tests/out/evil.test.ts", content: "x" })).toMatch(
      /^Refused: .*symlinked directory/,
    );
    await expect(readFile(join(repo.outside, "sub/evil.test.ts"))).rejects.toThrow(/ENOENT/);
    expect(ctx.written.size).toBe(0);
  });

  it("refuses an existing directory as the file path", async () => {
    expect(await write({ path: "tests", content: "x" })).toMatch(/^Refused: "tests" already exists/);
  });

  it("refuses .git/ and .devflow/", async () => {
    expect(await write({ path: ".git/hooks/pre-commit", content: "x" })).toMatch(
      /^Refused: .*inside \.git\//,
    );
    expect(await write({ path: ".devflow/x.test.ts", content: "x" })).toMatch(
      /^Refused: .*inside \.devflow\//,
    );
  });

  it("refuses oversized content", async () => {
    expect(await write({ path: "tests/big.test.ts", content: "x".repeat(70_000) })).toMatch(
      /^Refused: The content is 70000 bytes/,
    );
  });
});
