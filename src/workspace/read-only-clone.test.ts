/**
 * cloneForReading (ADR 0057): the clone a read-only ticket of a git URL reads. Real bare
 * repositories behind file:// URLs; a hostile global git config (HOME is writable to coders of
 * earlier tickets, ADR 0021) that would run programs through hooks, a template's hooks, fsmonitor
 * and a smudge filter the remote's `.gitattributes` asks for. None of them may run, the files are
 * the remote's bytes, and the remote does not change.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../test/support/git-remote.js";
import { git, makeRepo, removeDir, tempDir } from "../../test/support/test-repo.js";
import { cloneForReading } from "./read-only-clone.js";

const dirs: string[] = [];
const savedGlobal = process.env.GIT_CONFIG_GLOBAL;
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
  if (savedGlobal === undefined) delete process.env.GIT_CONFIG_GLOBAL;
  else process.env.GIT_CONFIG_GLOBAL = savedGlobal;
});

const temp = (): string => {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
};

/** A bare remote, two commits, whose `.gitattributes` sends every file through filter `evil`. */
function bareRemote(): { url: string; bare: string; head: string } {
  const source = makeRepo({ "README.md": "remote v1\n" });
  dirs.push(source);
  writeFileSync(join(source, ".gitattributes"), "* filter=evil\n");
  writeFileSync(join(source, "README.md"), "remote v2\n");
  git(source, "add", "-A");
  git(source, "commit", "-q", "-m", "v2");
  const bare = join(temp(), "remote.git");
  git(source, "clone", "--quiet", "--bare", source, bare);
  return { url: pathToFileURL(bare).href, bare, head: git(bare, "rev-parse", "HEAD").trim() };
}

/** Everything in a bare repository, file by file, as bytes: any write to it shows. */
function bareBytes(bare: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(bare, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path, readFileSync(path).toString("base64"));
  }
  return files;
}

/** A global config whose every program drops a marker file in `markers/` (the process env points git at it). */
function hostileGlobalConfig(): string {
  const dir = temp();
  const markers = join(dir, "markers");
  mkdirSync(markers);
  const script = (name: string, body: string): string => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\ntouch '${markers}/${name}'\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  const hooks = join(dir, "hooks");
  const template = join(dir, "template");
  mkdirSync(hooks);
  mkdirSync(join(template, "hooks"), { recursive: true });
  for (const hook of ["post-checkout", "reference-transaction", "post-index-change"]) {
    writeFileSync(join(hooks, hook), `#!/bin/sh\ntouch '${markers}/hook-${hook}'\n`);
    chmodSync(join(hooks, hook), 0o755);
  }
  writeFileSync(
    join(template, "hooks", "post-index-change"),
    `#!/bin/sh\ntouch '${markers}/template-hook'\n`,
  );
  chmodSync(join(template, "hooks", "post-index-change"), 0o755);
  const config = join(dir, "gitconfig");
  writeFileSync(
    config,
    [
      "[core]",
      `\thooksPath = ${hooks}`,
      `\tfsmonitor = ${script("fsmonitor", "exit 1")}`,
      "[init]",
      `\ttemplateDir = ${template}`,
      '[filter "evil"]',
      `\tsmudge = ${script("smudge", "echo SMUDGED")}`,
      "",
    ].join("\n"),
  );
  process.env.GIT_CONFIG_GLOBAL = config;
  return markers;
}

describe("cloneForReading", () => {
  it("clones the remote's HEAD shallowly; no hook, template hook, fsmonitor or smudge filter from the global config runs; the remote is byte-identical", async () => {
    const { url, bare, head } = bareRemote();
    const before = bareBytes(bare);
    const markers = hostileGlobalConfig();
    const dir = join(temp(), "cache", "reads", "t1");

    expect(await cloneForReading({ url, dir })).toBe(dir);

    expect(readdirSync(markers)).toEqual([]);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("remote v2\n");
    expect(existsSync(join(dir, ".git", "hooks"))).toBe(false);
    expect(git(dir, "rev-parse", "HEAD").trim()).toBe(head);
    expect(git(dir, "rev-list", "--count", "HEAD").trim()).toBe("1");
    expect(git(dir, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(bareBytes(bare)).toEqual(before);
  });

  it("replaces whatever an earlier run left at the folder", async () => {
    const { url } = bareRemote();
    const dir = join(temp(), "t2");
    mkdirSync(dir);
    writeFileSync(join(dir, "planted.txt"), "not the remote's\n");
    await cloneForReading({ url, dir });
    expect(existsSync(join(dir, "planted.txt"))).toBe(false);
    expect(existsSync(join(dir, "README.md"))).toBe(true);
  });

  it("a URL that cannot be cloned fails CLONE_FAILED without its credentials and leaves no folder", async () => {
    const dir = join(temp(), "t3");
    const missing = pathToFileURL(join(temp(), "missing.git")).href.replace("file://", "file://user:s3cret@");
    const error = await cloneForReading({ url: missing, dir }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "CLONE_FAILED" });
    expect(String((error as Error).message)).not.toContain("s3cret");
    expect(existsSync(dir)).toBe(false);
  });

  /**
   * Regression: a clone of an unreachable host leaked the URL's token into the error. Cause: git
   * names the host with its credentials ("unable to look up user:token@127.0.0.1:port"), and only
   * the whole URL was redacted. Fix: gitComplaint (clone.ts, shared with cloneForTask) masks every
   * `<userinfo>@` and the password itself.
   */
  it("an unreachable host's error does not carry the URL's token (git names the host with it)", async () => {
    const dir = join(temp(), "t4");
    const url = `git://reader:tok3n-secret@127.0.0.1:${await freePort()}/remote.git`;
    const error = await cloneForReading({ url, dir }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "CLONE_FAILED" });
    expect((error as Error).message).toContain("could not clone git://***@127.0.0.1:");
    expect((error as Error).message).not.toContain("tok3n-secret");
    expect(existsSync(dir)).toBe(false);
  });
});
