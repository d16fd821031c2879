import { afterEach, describe, expect, it } from "vitest";
import { makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import { repoMap } from "./repo-map.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("repoMap", () => {
  it("lists tracked files (not untracked ones), package.json scripts and Makefile targets", async () => {
    const root = makeRepo({
      "package.json": JSON.stringify({ name: "app", scripts: { test: "vitest run", build: "tsc -p ." } }),
      Makefile: [
        "CC := gcc",
        "VERSION = 1",
        ".PHONY: all test",
        "all: build",
        "build test: deps",
        "\t$(CC) -o app main.c",
        "%.o: %.c",
        "clean:",
        "\trm -f app",
      ].join("\n"),
      "src/main.c": "int main(void) { return 0; }\n",
    });
    dirs.push(root);
    writeFiles(root, { "scratch.txt": "untracked\n" });

    expect(await repoMap(root)).toBe(
      [
        "Tracked files (3):",
        "Makefile",
        "package.json",
        "src/main.c",
        "",
        "package.json scripts:",
        "  test: vitest run",
        "  build: tsc -p .",
        "",
        "Makefile targets: all, build, test, clean",
        "",
      ].join("\n"),
    );
  });

  it("bounds the file list and says how many were left out", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++)
      files[`src/file-${String(i).padStart(2, "0")}.ts`] = `export const n = ${i};\n`;
    const root = makeRepo(files);
    dirs.push(root);

    const map = await repoMap(root, { maxFiles: 5 });

    expect(map.split("\n")).toEqual([
      "Tracked files (12):",
      "src/file-00.ts",
      "src/file-01.ts",
      "src/file-02.ts",
      "src/file-03.ts",
      "src/file-04.ts",
      "… 7 more files",
      "",
    ]);
  });

  it("says so when package.json is not valid JSON", async () => {
    const root = makeRepo({ "package.json": "{ nope" });
    dirs.push(root);
    expect(await repoMap(root)).toContain("package.json scripts:\n  (package.json is not valid JSON)");
  });
});
