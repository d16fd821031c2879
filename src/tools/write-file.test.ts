import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import type { ToolContext } from "./define-tool.js";
import { WRITE_FILE_MAX_BYTES, writeFileTool } from "./write-file.js";

let repo: TempRepo;
let ctx: ToolContext;
beforeEach(async () => {
  repo = await makeTempRepo({ "src/app.js": "export const a = 1;\n" });
  ctx = repo.ctx();
  await mkdir(join(repo.outside, "sub"));
  await writeFile(join(repo.outside, "secret.txt"), "outside\n");
  await symlink(join(repo.outside, "sub"), join(repo.dir, "linked-dir"));
  await symlink(join(repo.outside, "secret.txt"), join(repo.dir, "linked-file.txt"));
  await symlink(join(repo.outside, "missing.txt"), join(repo.dir, "dangling.txt"));
});
afterEach(() => repo.cleanup());

const write = (args: Record<string, unknown>) => writeFileTool.bind(ctx).invoke(args).then(String);

describe("write_file", () => {
  it("creates a new file with its directories and records it as written", async () => {
    const out = await write({ path: "src/new/util.js", content: "export const u = 2;\n" });
    expect(out).toBe("Created src/new/util.js (20 bytes).");
    expect(await readFile(join(repo.dir, "src/new/util.js"), "utf8")).toBe("export const u = 2;\n");
    expect([...ctx.written]).toEqual(["src/new/util.js"]);
  });

  it("overwrites an existing file, keeping its permissions", async () => {
    const script = join(repo.dir, "run.sh");
    await writeFile(script, "#!/bin/sh\necho old\n", { mode: 0o755 });
    const out = await write({ path: "run.sh", content: "#!/bin/sh\necho new\n" });
    expect(out).toBe("Overwrote run.sh (19 bytes, was 19 bytes).");
    expect(await readFile(script, "utf8")).toBe("#!/bin/sh\necho new\n");
    expect((await stat(script)).mode & 0o777).toBe(0o755);
    expect(ctx.written.size).toBe(0);
  });

  it("creates an empty file when content is empty", async () => {
    expect(await write({ path: "empty.txt", content: "" })).toBe("Created empty.txt (0 bytes).");
    expect(await readFile(join(repo.dir, "empty.txt"), "utf8")).toBe("");
  });

  it("refuses paths that escape the worktree and writes nothing outside", async () => {
    expect(await write({ path: "../escape.txt", content: "x" })).toMatch(/^Refused: .*climbs out/);
    expect(await write({ path: join(repo.outside, "abs.txt"), content: "x" })).toMatch(
      /^Refused: .*absolute path outside the worktree/,
    );
    expect(await write({ path: "linked-dir/evil.txt", content: "x" })).toMatch(
      /^Refused: .*symlinked directory/,
    );
    expect(await write({ path: "linked-file.txt", content: "changed" })).toMatch(
      /^Refused: .*symlink to a location outside/,
    );
    expect(await write({ path: "dangling.txt", content: "x" })).toMatch(/^Refused: .*target does not exist/);
    expect(await readFile(join(repo.outside, "secret.txt"), "utf8")).toBe("outside\n");
    await expect(stat(join(repo.outside, "sub", "evil.txt"))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(repo.outside, "missing.txt"))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(repo.dir, "..", "escape.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses .git/ and .devflow/ (also nested, also through a symlink inside the worktree)", async () => {
    expect(await write({ path: ".git/config", content: "x" })).toMatch(/^Refused: .*inside \.git\//);
    expect(await write({ path: ".devflow/iterate/x.json", content: "{}" })).toMatch(/inside \.devflow\//);
    expect(await write({ path: "vendor/lib/.git/HEAD", content: "x" })).toMatch(/inside \.git\//);
    await symlink(join(repo.dir, ".git", "config"), join(repo.dir, "innocent.cfg"));
    expect(await write({ path: "innocent.cfg", content: "x" })).toMatch(/inside \.git\//);
    expect(await readFile(join(repo.dir, ".git", "config"), "utf8")).toContain("[core]");
  });

  it("refuses a directory and oversized content with what to do instead", async () => {
    expect(await write({ path: "src", content: "x" })).toMatch(/^Refused: "src" is a directory/);
    const big = "x".repeat(WRITE_FILE_MAX_BYTES + 1);
    expect(await write({ path: "big.txt", content: big })).toMatch(/^Refused: .*at most .*edit_file/);
  });

  it("answers missing arguments with the list of problems", async () => {
    expect(await write({ path: "a.txt" })).toMatch(/^Invalid arguments for write_file:\n- content:/);
  });
});
