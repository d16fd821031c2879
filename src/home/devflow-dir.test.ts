import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import { ensureDevflowDir } from "./paths.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("ensureDevflowDir", () => {
  it("creates .devflow with a .gitignore of * so the user's status stays clean", () => {
    const root = makeRepo();
    dirs.push(root);
    const dir = ensureDevflowDir(root);
    expect(dir).toBe(join(root, ".devflow"));
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("*\n");
    writeFiles(dir, { "iterate/t1/task_artifact.json": "{}", "state.sqlite": "x" });
    expect(git(root, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(existsSync(join(root, ".gitignore"))).toBe(false);
  });

  it("never touches the user's own .gitignore and repairs its own", () => {
    const root = makeRepo({ ".gitignore": "node_modules/\n" });
    dirs.push(root);
    writeFileSync(join(root, ".devflow-not-ours"), "");
    ensureDevflowDir(root);
    writeFileSync(join(root, ".devflow", ".gitignore"), "edited\n");
    ensureDevflowDir(root);
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("node_modules/\n");
    expect(readFileSync(join(root, ".devflow", ".gitignore"), "utf8")).toBe("*\n");
    expect(git(root, "status", "--porcelain")).toBe("?? .devflow-not-ours\n");
  });
});
