/**
 * Issue 11, "devflow clean ignores idle coder checkouts": since ADR 0050 (fourth slice) a finished
 * task's coder checkout waits in `.devflow/worktrees/.idle/<id>` for the next task, and no command
 * listed or removed it (not a task id, so `clean` never saw it).
 * Fix: `devflow clean --idle` lists (dry run) and removes them, `--older-than` by the time each went
 * idle (the mtime of its `.idle/<id>.index`); each is claimed by rename before it is deleted, and a
 * symlinked entry is removed as the link alone. A real repository, real idle git checkouts, the real
 * bin in child processes.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { runDevflow } from "../faults/cli-process.js";

const DAY = 86_400_000;
const devflow = (...args: string[]) => runDevflow(args, {});
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();

let repo: string;
let idle: string;

/** A coder checkout retired `ageMs` ago, as retireCoderCheckout leaves it: `<id>/` and `<id>.index`. */
function retire(id: string, ageMs: number): string {
  const dir = join(idle, id);
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q");
  writeFileSync(join(dir, "work.txt"), `${id}\n`.repeat(4000));
  git(dir, "add", "work.txt");
  git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", id);
  const index = join(idle, `${id}.index`);
  writeFileSync(index, readFileSync(join(dir, ".git", "index")));
  const at = new Date(Date.now() - ageMs);
  utimesSync(index, at, at);
  return dir;
}

beforeEach(() => {
  repo = createFixtureRepo("csv-import");
  idle = join(repo, ".devflow", "worktrees", ".idle");
  mkdirSync(idle, { recursive: true });
  writeFileSync(join(repo, ".devflow", ".gitignore"), "*\n");
});

describe("devflow clean --idle: idle coder checkouts", () => {
  it("--dry-run lists each (path, size, age) and removes nothing; --json says the same", async () => {
    retire("old-task", 5 * DAY);
    retire("young-task", 60_000);
    const before = readdirSync(idle).sort();
    const dry = await devflow("clean", "-r", repo, "--idle", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /^would remove idle checkout \.devflow\/worktrees\/\.idle\/old-task \(old-task\), [\d.]+ kB, idle 5d$/m,
    );
    expect(dry.stdout).toMatch(
      /^would remove idle checkout \.devflow\/worktrees\/\.idle\/young-task \(young-task\), [\d.]+ kB, idle 1m$/m,
    );
    expect(readdirSync(idle).sort()).toEqual(before);

    const json = JSON.parse((await devflow("clean", "-r", repo, "--idle", "--dry-run", "--json")).stdout);
    expect(json.dry_run).toBe(true);
    expect(json.idle_checkouts.map((i: { id: string }) => i.id)).toEqual(["old-task", "young-task"]);
    expect(json.idle_checkouts[0].path).toBe(join(idle, "old-task"));
    expect(json.idle_checkouts[0].bytes).toBeGreaterThan(16_000);
    expect(Date.now() - Date.parse(json.idle_checkouts[0].retired_at)).toBeGreaterThan(5 * DAY - 60_000);
    expect(json.freed_bytes).toBe(json.idle_checkouts[0].bytes + json.idle_checkouts[1].bytes);
    expect(readdirSync(idle).sort()).toEqual(before);
  });

  it("one without its index is listed as idle since unknown (retired_at null), never as idle since 1970", async () => {
    retire("young-task", 60_000);
    const orphan = retire("no-index-task", 60_000);
    rmSync(join(idle, "no-index-task.index"));
    expect(existsSync(orphan)).toBe(true);
    const dry = await devflow("clean", "-r", repo, "--idle", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /^would remove idle checkout \.devflow\/worktrees\/\.idle\/no-index-task \(no-index-task\), [\d.]+ kB, idle since unknown \(no index: never reused\)$/m,
    );
    const json = JSON.parse((await devflow("clean", "-r", repo, "--idle", "--dry-run", "--json")).stdout);
    // The oldest (it can never be reused), first in the listing.
    expect(
      json.idle_checkouts.map((i: { id: string; retired_at: string | null }) => [
        i.id,
        i.retired_at === null,
      ]),
    ).toEqual([
      ["no-index-task", true],
      ["young-task", false],
    ]);
  });

  it("removes them (checkout and index), and nothing of the repository", async () => {
    retire("old-task", 5 * DAY);
    retire("young-task", 60_000);
    const status = git(repo, "status", "--porcelain");
    const run = await devflow("clean", "-r", repo, "--idle", "--json");
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).idle_checkouts.map((i: { id: string }) => i.id)).toEqual([
      "old-task",
      "young-task",
    ]);
    // Nothing left: no checkout, no index, no private claim name.
    expect(readdirSync(idle)).toEqual([]);
    expect(git(repo, "status", "--porcelain")).toBe(status);
  });

  it("--older-than keeps one that went idle more recently (its age is its index's, not its files')", async () => {
    const old = retire("old-task", 5 * DAY);
    const young = retire("young-task", 60_000);
    // The young one's files are old: the age that counts is when it was retired.
    const longAgo = new Date(Date.now() - 30 * DAY);
    utimesSync(join(young, "work.txt"), longAgo, longAgo);
    utimesSync(young, longAgo, longAgo);
    const run = await devflow("clean", "-r", repo, "--idle", "--older-than", "2d");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^removed idle checkout \.devflow\/worktrees\/\.idle\/old-task \(old-task\), /m,
    );
    expect(run.stdout).toMatch(
      /^kept idle checkout \.devflow\/worktrees\/\.idle\/young-task \(young-task\), [\d.]+ kB, idle 1m: younger than --older-than$/m,
    );
    expect(existsSync(old)).toBe(false);
    expect(existsSync(join(idle, "old-task.index"))).toBe(false);
    expect(readFileSync(join(young, "work.txt"), "utf8")).toContain("young-task");
    expect(existsSync(join(idle, "young-task.index"))).toBe(true);
  });

  it("--older-than without --idle takes old idle checkouts along with old tasks", async () => {
    retire("old-task", 5 * DAY);
    retire("young-task", 60_000);
    const run = await devflow("clean", "-r", repo, "--older-than", "2d", "--json");
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.idle_checkouts.map((i: { id: string }) => i.id)).toEqual(["old-task"]);
    expect(json.idle_checkouts_kept.map((i: { id: string }) => i.id)).toEqual(["young-task"]);
    expect(readdirSync(idle).sort()).toEqual(["young-task", "young-task.index"]);
  });

  it("an idle entry that is a symlink to a directory outside: only the link goes, the target survives", async () => {
    const outside = mkdtempSync(join(tmpdir(), "devflow-idle-target-"));
    mkdirSync(join(outside, "src"));
    writeFileSync(join(outside, "src", "precious.txt"), "keep me\n");
    symlinkSync(outside, join(idle, "linked-task"));
    const at = new Date(Date.now() - 5 * DAY);
    writeFileSync(join(idle, "linked-task.index"), "x");
    utimesSync(join(idle, "linked-task.index"), at, at);
    const dry = JSON.parse((await devflow("clean", "-r", repo, "--idle", "--dry-run", "--json")).stdout);
    // Its size is the link's own, not what it points at.
    expect(dry.idle_checkouts[0].bytes).toBeLessThan(4096);
    const run = await devflow("clean", "-r", repo, "--idle", "--older-than", "1d");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^removed idle checkout \.devflow\/worktrees\/\.idle\/linked-task /m);
    expect(readdirSync(idle)).toEqual([]);
    expect(readFileSync(join(outside, "src", "precious.txt"), "utf8")).toBe("keep me\n");
    expect(lstatSync(outside).isDirectory()).toBe(true);
    rmSync(outside, { recursive: true, force: true });
  });

  it("refuses --idle with --task or --failed (exit 2), and says --idle when nothing is selected", async () => {
    const withTask = await devflow("clean", "-r", repo, "--idle", "--task", "x");
    expect(withTask.code).toBe(2);
    expect(withTask.stderr).toContain("--task names one task");
    const withFailed = await devflow("clean", "-r", repo, "--idle", "--failed");
    expect(withFailed.code).toBe(2);
    expect(withFailed.stderr).toContain("use it without --failed or --clones");
    const none = await devflow("clean", "-r", repo);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--orphans or --idle");
  });
});

/**
 * Issue 11 leftover, "clean --task leaves the task's idle coder checkout": a finished task's coder
 * checkout is renamed into `.idle/<id>` (ADR 0050), where `clean --task <id>` never looked; the task
 * went and its checkout stayed until some `--idle` or `--older-than` clean.
 * Fix (clean.ts): `--task <id>` also removes `.idle/<id>` (claimed by rename like `--idle` does), and
 * refuses through a linked `.idle` before removing anything.
 */
describe("devflow clean --task also takes the task's idle coder checkout", () => {
  /** A finished task's artifact dir (its run record is not needed: clean takes an unreadable one). */
  function task(id: string): string {
    const dir = join(repo, ".devflow", "iterate", id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "notes.txt"), "artifacts\n");
    return dir;
  }

  it("removes .idle/<id> and its index with the task, and no other task's idle checkout", async () => {
    const artifacts = task("done-task");
    retire("done-task", DAY);
    retire("other-task", DAY);
    const dry = await devflow("clean", "-r", repo, "--task", "done-task", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /^would remove idle checkout \.devflow\/worktrees\/\.idle\/done-task \(done-task\), /m,
    );
    expect(existsSync(join(idle, "done-task"))).toBe(true);

    const run = await devflow("clean", "-r", repo, "--task", "done-task", "--json");
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.cleaned.map((c: { id: string }) => c.id)).toEqual(["done-task"]);
    expect(json.idle_checkouts.map((i: { id: string }) => i.id)).toEqual(["done-task"]);
    expect(json.freed_bytes).toBeGreaterThan(json.idle_checkouts[0].bytes - 1);
    expect(readdirSync(idle).sort()).toEqual(["other-task", "other-task.index"]);
    expect(existsSync(join(artifacts, "notes.txt"))).toBe(false);
  });

  it("a linked .idle: refuses (CHECKOUT_UNUSABLE) before removing anything, the link's target survives", async () => {
    const artifacts = task("done-task");
    const outside = mkdtempSync(join(tmpdir(), "devflow-idle-link-"));
    mkdirSync(join(outside, "done-task"));
    writeFileSync(join(outside, "done-task", "precious.txt"), "keep me\n");
    rmSync(idle, { recursive: true });
    symlinkSync(outside, idle);
    const run = await devflow("clean", "-r", repo, "--task", "done-task");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("a link on the way");
    expect(readFileSync(join(outside, "done-task", "precious.txt"), "utf8")).toBe("keep me\n");
    expect(existsSync(join(artifacts, "notes.txt"))).toBe(true);
    rmSync(outside, { recursive: true, force: true });
  });
});
