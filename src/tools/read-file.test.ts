import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import { readFileTool } from "./read-file.js";

let repo: TempRepo;
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");
beforeEach(async () => {
  repo = await makeTempRepo({
    "src/app.ts": "const a = 1;\nconst b = 2;\nexport { a, b };\n",
    "big.txt": `${numbered(1000)}\n`,
  });
  await writeFile(join(repo.outside, "secret.txt"), "TOP SECRET\n");
  await symlink(join(repo.outside, "secret.txt"), join(repo.dir, "leak.txt"));
});
afterEach(() => repo.cleanup());

const read = (args: Record<string, unknown>) => readFileTool.bind(repo.ctx()).invoke(args).then(String);

describe("read_file", () => {
  it("shows the file with line numbers and a header", async () => {
    expect(await read({ path: "src/app.ts" })).toBe(
      "src/app.ts (lines 1-3 of 3).\n1| const a = 1;\n2| const b = 2;\n3| export { a, b };",
    );
  });

  it("reads a line range", async () => {
    const out = await read({ path: "big.txt", start_line: 10, end_line: 12 });
    expect(out.split("\n")).toEqual([
      "big.txt (lines 10-12 of 1000). Call again with start_line=13 for more.",
      "10| line 10",
      "11| line 11",
      "12| line 12",
    ]);
  });

  it("is bounded by default and says where to continue", async () => {
    const out = await read({ path: "big.txt" });
    expect(out.split("\n")[0]).toBe(
      "big.txt (lines 1-400 of 1000). Call again with start_line=401 for more.",
    );
    expect(out).toContain("400| line 400");
    expect(out).not.toContain("401| line 401");
  });

  it("refuses paths that escape the worktree: ../, absolute elsewhere, and a symlink out", async () => {
    expect(await read({ path: "../outside/secret.txt" })).toMatch(/^Refused: .*climbs out of the worktree/);
    expect(await read({ path: join(repo.outside, "secret.txt") })).toMatch(
      /^Refused: .*absolute path outside/,
    );
    const viaLink = await read({ path: "leak.txt" });
    expect(viaLink).toMatch(/^Refused: .*symlink/);
    expect(viaLink).not.toContain("TOP SECRET");
  });

  it("explains directories, binary files, missing files and a start past the end", async () => {
    await mkdir(join(repo.dir, "assets"));
    await writeFile(join(repo.dir, "assets/logo.png"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect(await read({ path: "src" })).toMatch(/is a directory. Use list_files/);
    expect(await read({ path: "assets/logo.png" })).toMatch(/binary file/);
    expect(await read({ path: "nope.ts" })).toMatch(/does not exist/);
    expect(await read({ path: "src/app.ts", start_line: 9 })).toMatch(
      /has 3 lines; start_line 9 is past the end/,
    );
  });

  it("redacts secrets from what it shows (the result goes to the model provider)", async () => {
    await writeFile(
      join(repo.dir, ".env"),
      "DATABASE_URL=postgres://app:hunter2pass@db/app\nOPENAI_API_KEY=sk-live-0123456789abcdefghij\n",
    );
    const out = await read({ path: ".env" });
    expect(out).toContain("OPENAI_API_KEY=[REDACTED]");
    expect(out).not.toContain("sk-live-0123456789abcdefghij");
    expect(out).not.toContain("hunter2pass");
  });

  it("returns a bad range as an argument error", async () => {
    expect(await read({ path: "big.txt", start_line: 5, end_line: 2 })).toMatch(
      /Invalid arguments for read_file:\n- end_line: end_line must be greater/,
    );
  });
});
