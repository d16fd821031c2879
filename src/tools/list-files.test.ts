import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import { listFilesTool } from "./list-files.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo({
    ".gitignore": "dist/\n",
    "src/app.ts": "",
    "src/api/cart.ts": "",
    "tests/cart.test.ts": "",
    "README.md": "",
  });
  await writeFile(join(repo.dir, "src/new.ts"), "");
  await writeFile(join(repo.dir, "dist-note.txt"), "");
});
afterEach(() => repo.cleanup());

const list = (args: Record<string, unknown>) => listFilesTool.bind(repo.ctx()).invoke(args).then(String);

describe("list_files", () => {
  it("lists tracked and new non-ignored files, sorted, and leaves out ignored ones", async () => {
    await writeFile(join(repo.dir, ".gitignore"), "dist/\nsecret.env\n");
    await writeFile(join(repo.dir, "secret.env"), "");
    const out = await list({});
    const lines = out.split("\n").slice(1);
    expect(lines).toEqual([
      ".gitignore",
      "README.md",
      "dist-note.txt",
      "src/api/cart.ts",
      "src/app.ts",
      "src/new.ts",
      "tests/cart.test.ts",
    ]);
  });

  it("filters with a glob, and a bare pattern matches file names anywhere", async () => {
    expect((await list({ pattern: "src/**" })).split("\n").slice(1)).toEqual([
      "src/api/cart.ts",
      "src/app.ts",
      "src/new.ts",
    ]);
    expect((await list({ pattern: "*.test.ts" })).split("\n").slice(1)).toEqual(["tests/cart.test.ts"]);
    expect(await list({ pattern: "*.py" })).toBe('No files matching "*.py".');
  });

  it("is bounded and says how many were left out", async () => {
    const out = await list({ max_results: 2 });
    expect(out.split("\n")).toHaveLength(3);
    expect(out.split("\n")[0]).toMatch(/^7 files in the repository; the first 2 are shown/);
  });

  it("rejects a max_results above the cap as an argument error", async () => {
    expect(await list({ max_results: 100_000 })).toMatch(/Invalid arguments for list_files:\n- max_results/);
  });
});
