import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, restoreEnv } from "../../test/support/test-repo.js";
import { headCommit } from "./commits.js";
import { gitEnv, gitSucceeds } from "./git.js";

const dirs: string[] = [];
const savedEnv = { ...process.env };
afterEach(() => {
  restoreEnv(savedEnv);
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("git environment", () => {
  it("never prompts on a terminal", () => {
    expect(gitEnv().GIT_TERMINAL_PROMPT).toBe("0");
  });

  it("ignores an inherited GIT_DIR/GIT_INDEX_FILE and editor (devflow started from a git hook)", async () => {
    const ours = makeRepo();
    const other = makeRepo({ "other.txt": "x\n" });
    dirs.push(ours, other);
    process.env.GIT_DIR = `${other}/.git`;
    process.env.GIT_INDEX_FILE = `${other}/.git/index`;
    process.env.EDITOR = "vim";
    process.env.GIT_EDITOR = "vim";

    expect(await headCommit(ours)).toBe(git(ours, "rev-parse", "HEAD").trim());
  });

  it("honours an inherited ssh command and askpass helper instead of refusing to run", async () => {
    const root = makeRepo();
    dirs.push(root);
    process.env.GIT_SSH_COMMAND = "ssh -o BatchMode=yes";
    process.env.GIT_ASKPASS = "/bin/false";
    expect(await headCommit(root)).toMatch(/^[0-9a-f]{40}$/);
  });

  it("gitSucceeds answers yes and no by exit code (execa, not simple-git), and fails when git cannot start", async () => {
    const root = makeRepo();
    dirs.push(root);
    expect(await gitSucceeds(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])).toBe(true);
    expect(await gitSucceeds(root, ["rev-parse", "--verify", "--quiet", "refs/heads/nope"])).toBe(false);
    await expect(gitSucceeds(`${root}/missing-dir`, ["status"])).rejects.toThrow(/failed/);
  });
});
