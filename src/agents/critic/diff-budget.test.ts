import { describe, expect, it } from "vitest";
import { budgetDiff, splitDiff, waterFill } from "./diff-budget.js";

function fileDiff(path: string, addedLines: number, width = 60): string {
  const lines = Array.from({ length: addedLines }, (_, i) => `+line ${i} ${"x".repeat(width)}`);
  return [
    `diff --git a/${path} b/${path}`,
    "index 1111111..2222222 100644",
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -1,0 +1,${addedLines} @@`,
    ...lines,
    "",
  ].join("\n");
}

describe("splitDiff", () => {
  it("splits per file and names new and deleted files", () => {
    const added =
      "diff --git a/new.ts b/new.ts\nnew file mode 100644\n--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1 @@\n+x\n";
    const deleted =
      "diff --git a/old.ts b/old.ts\ndeleted file mode 100644\n--- a/old.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    const parts = splitDiff(fileDiff("src/a.ts", 2) + added + deleted);
    expect(parts.map((p) => p.path)).toEqual(["src/a.ts", "new.ts", "old.ts"]);
    expect(parts[1]?.text).toBe(added);
  });

  it("returns nothing for an empty diff", () => {
    expect(splitDiff("")).toEqual([]);
  });
});

describe("waterFill", () => {
  it("gives small items all they need and shares the rest", () => {
    expect(waterFill([100, 10_000, 50], 1000)).toEqual([100, 850, 50]);
  });

  it("never allocates more than the budget", () => {
    const alloc = waterFill([500, 500, 500, 500], 1001);
    expect(alloc.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1001);
  });
});

describe("budgetDiff", () => {
  it("keeps a diff that fits whole", () => {
    const diff = fileDiff("src/a.ts", 5) + fileDiff("src/b.ts", 5);
    const b = budgetDiff(diff, 12 * 1024, "/t/diff.patch");
    expect(b.text).toBe(diff);
    expect(b.truncatedFiles).toEqual([]);
    expect(b.files).toEqual(["src/a.ts", "src/b.ts"]);
  });

  it("does not let a huge lockfile crowd out the small change that matters", () => {
    const small = fileDiff("src/trim.ts", 6);
    const diff = fileDiff("package-lock.json", 5000) + small;
    const b = budgetDiff(diff, 12 * 1024, "/t/diff.patch");
    expect(b.shownBytes).toBeLessThanOrEqual(12 * 1024);
    expect(b.totalBytes).toBe(Buffer.byteLength(diff));
    expect(b.text).toContain(small);
    expect(b.truncatedFiles).toEqual(["package-lock.json"]);
    expect(b.text).toContain("diff of package-lock.json cut at");
    expect(b.text).toContain("full diff in /t/diff.patch");
    expect(b.text).toContain("+line 0 ");
  });

  it("stays within budget with hundreds of files, omitting the ones that cannot show anything useful", () => {
    const diff = Array.from({ length: 300 }, (_, i) => fileDiff(`src/gen/file-${i}.ts`, 20)).join("");
    const b = budgetDiff(diff, 12 * 1024, "/t/diff.patch");
    expect(b.shownBytes).toBeLessThanOrEqual(12 * 1024);
    expect(b.files).toHaveLength(300);
    expect(b.text).toMatch(/300 file diff\(s\) omitted|file diff\(s\) omitted and \d+ cut/);
  });

  it("cuts a single huge line without breaking UTF-8", () => {
    const diff = `diff --git a/m.js b/m.js\n--- a/m.js\n+++ b/m.js\n@@ -1 +1 @@\n+${"é".repeat(20_000)}\n`;
    const b = budgetDiff(diff, 2048, "/t/diff.patch");
    expect(b.shownBytes).toBeLessThanOrEqual(2048);
    expect(b.text).not.toContain("\uFFFD");
  });
});
