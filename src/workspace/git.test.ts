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

  it("drops inherited config, attributes and replace-object variables; only a clone keeps the user's config", () => {
    process.env.GIT_CONFIG_PARAMETERS = "'filter.x.smudge'='evil'";
    process.env.GIT_CONFIG_KEY_7 = "filter.x.smudge";
    process.env.GIT_CONFIG_GLOBAL = "/home/someone/.gitconfig";
    process.env.GIT_DIR = "/elsewhere/.git";
    const env = gitEnv();
    expect(env.GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(env.GIT_CONFIG_KEY_7).toBeUndefined();
    expect(env.GIT_DIR).toBeUndefined();
    expect(env).toMatchObject({
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_ATTR_NOSYSTEM: "1",
      GIT_NO_REPLACE_OBJECTS: "1",
      GIT_CONFIG_KEY_0: "core.attributesFile",
    });
    const clone = gitEnv({}, { userConfig: true });
    expect(clone.GIT_CONFIG_GLOBAL).toBe("/home/someone/.gitconfig");
    expect(clone.GIT_CONFIG_PARAMETERS).toBe("'filter.x.smudge'='evil'");
    expect(clone.GIT_DIR).toBeUndefined();
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
