import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir } from "../../test/support/test-repo.js";
import { snapshotTree } from "./snapshot.js";
import { normalizeRepoPath, treeWithBaseFiles } from "./tree-with-base-files.js";

let repo = "";
afterEach(() => removeDir(repo));

const blob = (treeish: string, path: string): string => git(repo, "show", `${treeish}:${path}`);
const mode = (tree: string, path: string): string =>
  git(repo, "ls-tree", tree, "--", path).split(" ")[0] ?? "";

describe("treeWithBaseFiles (a Verification block's programs as on base, ADR 0059)", () => {
  it("puts back base's content and mode of a program the attempt rewrote, and only that", async () => {
    repo = makeRepo({ "scripts/check.sh": 'test -n "$(grep trim src/a.js)"\n', "src/a.js": "bug\n" });
    chmodSync(join(repo, "scripts/check.sh"), 0o755);
    git(repo, "commit", "--quiet", "-am", "exec");
    const base = git(repo, "rev-parse", "HEAD").trim();
    writeFileSync(join(repo, "scripts/check.sh"), "exit 0\n");
    chmodSync(join(repo, "scripts/check.sh"), 0o644);
    writeFileSync(join(repo, "src/a.js"), "careless\n");
    writeFileSync(join(repo, "src/new.js"), "new\n");
    const snapshot = await snapshotTree(repo);

    const { tree, fromBase } = await treeWithBaseFiles(repo, snapshot, base, [
      "./scripts/check.sh",
      "src/new.js",
      "src",
      "/etc/passwd",
      "../outside",
    ]);
    expect(fromBase).toEqual([{ path: "scripts/check.sh", changed: true }]);
    expect(blob(tree, "scripts/check.sh")).toBe(blob(base, "scripts/check.sh"));
    expect(mode(tree, "scripts/check.sh")).toBe("100755");
    // What the block checks stays the attempt's; the snapshot itself is unchanged.
    expect(blob(tree, "src/a.js")).toBe("careless\n");
    expect(blob(tree, "src/new.js")).toBe("new\n");
    expect(blob(snapshot, "scripts/check.sh")).toBe("exit 0\n");
    // The user's index is untouched (a throw-away index built the tree).
    expect(git(repo, "status", "--porcelain")).toContain(" M scripts/check.sh");
  });

  it("returns the snapshot itself when the attempt left every program as on base", async () => {
    repo = makeRepo({ "check.mjs": "ok\n", "a.js": "bug\n" });
    const base = git(repo, "rev-parse", "HEAD").trim();
    writeFileSync(join(repo, "a.js"), "fix\n");
    const snapshot = await snapshotTree(repo);
    expect(await treeWithBaseFiles(repo, snapshot, base, ["check.mjs"])).toEqual({
      tree: snapshot,
      fromBase: [{ path: "check.mjs", changed: false }],
    });
  });

  it("takes base's file where the attempt made it a directory or removed it", async () => {
    repo = makeRepo({ "check.sh": "exit 1\n", "gone.sh": "exit 1\n" });
    const base = git(repo, "rev-parse", "HEAD").trim();
    rmSync(join(repo, "check.sh"));
    mkdirSync(join(repo, "check.sh"));
    writeFileSync(join(repo, "check.sh", "inner"), "x\n");
    rmSync(join(repo, "gone.sh"));
    const snapshot = await snapshotTree(repo);
    const { tree, fromBase } = await treeWithBaseFiles(repo, snapshot, base, ["check.sh", "gone.sh"]);
    expect(fromBase).toEqual([
      { path: "check.sh", changed: true },
      { path: "gone.sh", changed: true },
    ]);
    expect(git(repo, "ls-tree", "-r", "--name-only", tree).trim().split("\n")).toEqual([
      "check.sh",
      "gone.sh",
    ]);
    expect(blob(tree, "check.sh")).toBe("exit 1\n");
  });

  // ADR 0074: the seam runs with base's test configuration, so one the attempt added must go too.
  // Mutation: the dropAdded branch removed (the added .mocharc.cjs stays in the tree).
  it("with dropAdded removes a candidate base does not track, and leaves it without", async () => {
    repo = makeRepo({ "package.json": '{"type":"module"}\n', "src/a.js": "bug\n" });
    const base = git(repo, "rev-parse", "HEAD").trim();
    writeFileSync(join(repo, "package.json"), '{"type":"module","imports":{"#a":"./evil.js"}}\n');
    writeFileSync(join(repo, ".mocharc.cjs"), "module.exports = { require: ['./evil.js'] };\n");
    writeFileSync(join(repo, "src/a.js"), "fix\n");
    const snapshot = await snapshotTree(repo);
    const paths = ["package.json", ".mocharc.cjs", "never.json"];

    const { tree, fromBase } = await treeWithBaseFiles(repo, snapshot, base, paths, { dropAdded: true });
    expect(fromBase).toEqual([
      { path: "package.json", changed: true },
      { path: ".mocharc.cjs", changed: true, added: true },
    ]);
    expect(git(repo, "ls-tree", "-r", "--name-only", tree).trim().split("\n")).toEqual([
      "package.json",
      "src/a.js",
    ]);
    expect(blob(tree, "package.json")).toBe('{"type":"module"}\n');
    expect(blob(tree, "src/a.js")).toBe("fix\n");

    const kept = await treeWithBaseFiles(repo, snapshot, base, paths);
    expect(git(repo, "ls-tree", "-r", "--name-only", kept.tree)).toContain(".mocharc.cjs");
  });

  it("refuses words that cannot name a tracked file inside the repository", () => {
    expect(
      ["./a/b", "a//b", "/abs", "../x", "a/../../x", "*.js", "$X", ":(top)a", "dir/", "."].map(
        normalizeRepoPath,
      ),
    ).toEqual(["a/b", "a/b", null, null, null, null, null, null, null, null]);
  });
});
