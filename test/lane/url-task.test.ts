/**
 * Regression: a task whose repository is a git URL could not start (issue 9 leftover).
 * Cause: the runner made `<baseDir>/<taskId>/.devflow` (home, task store, lock, checkpointer)
 * before `cloneForTask`, which refuses an existing folder, so every URL task ended
 * CHECKOUT_EXISTS. Fix: a new URL task clones first (src/lanes/iterate/run.ts), then sets up
 * devflow's home inside the clone; a clone whose setup fails is removed again.
 *
 * What "the user's repository" is for a URL task (src/workspace/README.md, ADR 0036): the
 * repository behind the URL, which devflow only reads (one clone, never a fetch or push after);
 * the clone `<baseDir>/<taskId>` stands in for it and gets the same checks as a local repository.
 * Real bare repositories, reachable as file:// URLs and through a real `git daemon` on 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevflowError } from "../../src/errors/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { cli } from "../support/cli.js";
import { bareRemote, freePort, type GitDaemon, startGitDaemon } from "../support/git-remote.js";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  demoCassette,
  NEAR_MISS_CODER,
  runLane,
  TASK_ID,
  tempDir,
  writeCassette,
} from "../support/lane-harness.js";
import { withMountNamespaceOff } from "../support/mount-namespace-off.js";
import { fingerprintChanges, fingerprintRepo } from "../support/repo-fingerprint.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

describe("a URL task runs the whole iterate lane in devflow's clone", () => {
  it("file:// URL: completes after a near miss, the result branch is in the clone, the remote is byte-identical", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const before = fingerprintRepo(remote.dir);
    const baseDir = tempDir("devflow-clones-");

    const run = await runLane({ repo: remote.url, baseDir, coder: NEAR_MISS_CODER });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    expect(run.repo).toBe(join(baseDir, TASK_ID));
    const iterator = await run.store.read("iterator_run");
    expect(iterator?.attempts.map((a) => [a.attempt_id, a.verdict])).toEqual([
      ["attempt-001", "fail"],
      ["attempt-002", "pass"],
    ]);
    expect(iterator?.workspace.repo).toBe(run.repo);

    // The verified change is devflow's commit on devflow/<id> in the clone, on top of the remote's HEAD.
    const branch = `devflow/${TASK_ID}`;
    expect(git(run.repo, "rev-parse", `${branch}^`)).toBe(git(remote.dir, "rev-parse", "HEAD"));
    expect(git(run.repo, "diff", "--name-only", "main", branch)).toContain("src/csv-import.js");
    expect(git(run.repo, "remote", "get-url", "origin")).toBe(remote.url);
    // The coder's checkout has no remote at all: nothing to push through.
    expect(git(run.result?.worktree ?? "", "remote")).toBe("");

    // The user's repository (the URL's) is byte-identical: no push, no branch, no object.
    expect(fingerprintChanges(before, fingerprintRepo(remote.dir))).toEqual([]);
    expect(git(remote.dir, "branch", "--list", "devflow/*")).toBe("");
    // The clone's own checkout is as cloned: devflow's home only, ignored by git.
    expect(git(run.repo, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(git(run.repo, "rev-parse", "HEAD")).toBe(git(remote.dir, "rev-parse", "HEAD"));
  });

  it("a second run of the same URL task is refused with --resume advice; --resume returns the same verdict", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const baseDir = tempDir("devflow-clones-");
    const first = await runLane({ repo: remote.url, baseDir, coder: coderScript(CORRECT_FIX) });
    expect(first.result?.terminal.verdict).toBe("completed");
    const commit = first.result?.terminal.commit;

    const again = await runLane({ repo: remote.url, baseDir, coder: coderScript(CORRECT_FIX) });
    expect(again.error).toBeInstanceOf(DevflowError);
    expect((again.error as DevflowError).code).toBe("TASK_EXISTS");
    expect((again.error as Error).message).toMatch(/--resume/);
    expect((again.error as Error).message).not.toContain("\n");

    const resumed = await runLane({
      repo: remote.url,
      baseDir,
      coder: coderScript(CORRECT_FIX),
      resume: true,
    });
    expect(resumed.error).toBeNull();
    expect(resumed.result?.terminal.verdict).toBe("completed");
    expect(resumed.result?.terminal.commit).toBe(commit);
    expect((await resumed.store.read("iterator_run"))?.attempts).toHaveLength(1);
    expect(git(resumed.repo, "rev-parse", `devflow/${TASK_ID}`)).toBe(commit);
  });

  it("--resume of a URL task that never started says there is nothing to resume and makes no folder", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const baseDir = tempDir("devflow-clones-");
    const run = await runLane({ repo: remote.url, baseDir, coder: coderScript(CORRECT_FIX), resume: true });
    expect((run.error as DevflowError).code).toBe("TASK_NOT_FOUND");
    expect(readdirSync(baseDir)).toEqual([]);
  });
});

describe("the clone gets the user-repository check (ADR 0036)", () => {
  // By path: where the mount namespace works the clone is read-only to the coder (it is the
  // run's repoRoot); this pins the check that runs everywhere.
  withMountNamespaceOff();
  it("a coder that moves main in devflow's clone by path ends blocked with user_repo_changed", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const before = fingerprintRepo(remote.dir);
    const evil = `${CORRECT_FIX}
      import { execFileSync } from "node:child_process";
      import { resolve } from "node:path";
      const clone = resolve(process.env.DEVFLOW_WORKTREE, "..", "..", "..");
      const git = (...args) => execFileSync("git", ["-C", clone, ...args], { encoding: "utf8" }).trim();
      git("update-ref", "refs/heads/main", git("commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "evil"));
    `;
    const run = await runLane({ repo: remote.url, coder: coderScript(evil) });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(/^user_repo_changed: .*refs\/heads\/main/);
    expect(fingerprintChanges(before, fingerprintRepo(remote.dir))).toEqual([]);
  });
});

describe("devflow iterate -r <url>", () => {
  it("clones into --base-dir and completes (exit 0), the summary naming the clone's branch", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const baseDir = tempDir("devflow-clones-");
    const r = await cli(
      "iterate",
      DEMO_REQUEST,
      "-r",
      remote.url,
      "-b",
      baseDir,
      "--task-id",
      TASK_ID,
      "--coder",
      coderScript(CORRECT_FIX),
      "--replay",
      writeCassette(demoCassette()),
      "--no-input",
    );
    expect(r.err).toMatch(/completed/);
    expect(r.code).toBe(0);
    expect(git(join(baseDir, TASK_ID), "log", "-1", "--format=%s", `devflow/${TASK_ID}`)).toMatch(
      /^devflow\(trim-emails\)/,
    );
  });

  it("an unreachable URL exits 2 with one line and no folder", async () => {
    const baseDir = tempDir("devflow-clones-");
    const url = `git://127.0.0.1:${await freePort()}/remote.git`;
    const r = await cli(
      "iterate",
      DEMO_REQUEST,
      "-r",
      url,
      "-b",
      baseDir,
      "--coder",
      "command:true",
      "--no-input",
      "--replay",
      writeCassette(demoCassette()),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/could not clone git:\/\/127\.0\.0\.1/);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(readdirSync(baseDir)).toEqual([]);
  });
});

describe("bad URLs: one actionable line, nothing left behind", () => {
  it("a file:// URL to nothing fails CLONE_FAILED and leaves no folder, not even a base dir it made", async () => {
    const parent = tempDir("devflow-clones-");
    const baseDir = join(parent, "not", "yet");
    const url = `file://${join(tempDir("devflow-remote-"), "missing.git")}`;
    const run = await runLane({ repo: url, baseDir, coder: coderScript(CORRECT_FIX) });
    expect(run.error).toBeInstanceOf(DevflowError);
    const error = run.error as DevflowError;
    expect(error.code).toBe("CLONE_FAILED");
    expect(error.message).toMatch(/^could not clone file:\/\/.*missing\.git: .*check the URL/);
    expect(error.message).not.toContain("\n");
    expect(readdirSync(parent)).toEqual([]);
  });

  it("an unreachable git:// URL (nothing listens on the port) fails CLONE_FAILED and leaves no folder", async () => {
    const baseDir = tempDir("devflow-clones-");
    const url = `git://127.0.0.1:${await freePort()}/remote.git`;
    const run = await runLane({ repo: url, baseDir, coder: coderScript(CORRECT_FIX) });
    expect((run.error as DevflowError).code).toBe("CLONE_FAILED");
    expect((run.error as Error).message).not.toContain("\n");
    expect(readdirSync(baseDir)).toEqual([]);
  });

  it("a clone whose setup fails after cloning is removed again, so the task can simply be re-run", async () => {
    // A repository that tracks a file where devflow's verification checkout goes: the clone and
    // the coder's checkout succeed, opening the verification checkout does not.
    const repo = createFixtureRepo("csv-import");
    mkdirSync(join(repo, ".devflow"));
    writeFileSync(join(repo, ".devflow", "verify"), "not a folder\n");
    git(repo, "add", "-f", ".devflow/verify");
    git(repo, "commit", "-qm", "track .devflow/verify");
    const remote = bareRemote(repo);
    const baseDir = tempDir("devflow-clones-");
    for (const round of [1, 2]) {
      const run = await runLane({ repo: remote.url, baseDir, coder: coderScript(CORRECT_FIX) });
      expect(run.error, `round ${round}`).not.toBeNull();
      expect((run.error as DevflowError).code, `round ${round}`).not.toBe("CHECKOUT_EXISTS");
      expect(readdirSync(baseDir), `round ${round}`).toEqual([]);
    }
  });

  it("a clone folder that already exists (not devflow's) is refused and left as it was", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const baseDir = tempDir("devflow-clones-");
    mkdirSync(join(baseDir, TASK_ID, "mine"), { recursive: true });
    const run = await runLane({ repo: remote.url, baseDir, coder: coderScript(CORRECT_FIX) });
    expect((run.error as DevflowError).code).toBe("CHECKOUT_EXISTS");
    expect(readdirSync(join(baseDir, TASK_ID))).toEqual(["mine"]);
  });
});

describe("a URL served by git daemon on 127.0.0.1", () => {
  let daemon: GitDaemon;
  let remote: { dir: string; url: string };
  beforeAll(async () => {
    remote = bareRemote(createFixtureRepo("csv-import"));
    daemon = await startGitDaemon(dirname(remote.dir), "remote.git");
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it("completes, and the served repository is byte-identical afterwards", async () => {
    const before = fingerprintRepo(remote.dir);
    const baseDir = tempDir("devflow-clones-");
    const run = await runLane({ repo: daemon.url("remote.git"), baseDir, coder: coderScript(CORRECT_FIX) });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    expect(existsSync(join(baseDir, TASK_ID, ".devflow", "iterate", TASK_ID, "iterator_run.json"))).toBe(
      true,
    );
    expect(git(run.repo, "remote", "get-url", "origin")).toBe(daemon.url("remote.git"));
    expect(fingerprintChanges(before, fingerprintRepo(remote.dir))).toEqual([]);
  });

  it("a repository the daemon does not serve fails CLONE_FAILED and leaves no folder", async () => {
    const baseDir = tempDir("devflow-clones-");
    const run = await runLane({ repo: daemon.url("nope.git"), baseDir, coder: coderScript(CORRECT_FIX) });
    expect((run.error as DevflowError).code).toBe("CLONE_FAILED");
    expect(readdirSync(baseDir)).toEqual([]);
  });
});
