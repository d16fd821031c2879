/**
 * Hostile review (session 17, attack7) of `devflow clean --idle` (idle-checkouts.ts): it claimed
 * "nothing here follows a link", but only each `.idle/<id>` entry was lstat'ed. `.idle` itself (or
 * `.devflow` or `worktrees` on the way) was read through a link: with
 * `.devflow/worktrees/.idle -> ~/projects` (a repository that tracks that path as a symlink checks it
 * out that way; a coder without a mount namespace can plant it), clean listed every directory there
 * whose name looks like a task id and renamed and deleted it: the user's files outside the
 * repository.
 * The same link reached the lane itself (coder-checkout-reuse.ts, ADR 0050 fourth slice): a task's
 * start claimed `<link>/my-project` by rename as an idle checkout, found no index for it and removed
 * it (coder-checkout-reuse-claims-through-a-linked-idle-dir); a task's end removed the "older idle
 * checkouts" beyond the limit there and renamed its own checkout into the link's target.
 * Fix (src/workspace/idle-dir.ts): the idle directory is used only when its real path is
 * `<real repo>/.devflow/worktrees/.idle` (no link on the way). Otherwise clean refuses with one
 * CHECKOUT_UNUSABLE line, reuse finds nothing idle (a fresh checkout) and retirement removes the
 * finished checkout instead of keeping it.
 *
 *     npx vitest run test/adversarial/review/clean-idle-follows-a-linked-idle-dir.test.ts
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { idleCoderCheckoutsDir, worktreesDir } from "../../../src/home/index.js";
import { listIdleCheckouts, removeIdleCheckout } from "../../../src/lanes/iterate/tasks/idle-checkouts.js";
import { retireCoderCheckout } from "../../../src/workspace/coder-checkout-reuse.js";
import { createTaskWorktree } from "../../../src/workspace/task-worktree.js";
import { makeRepo } from "../../support/test-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository and, outside it, a folder of the user's projects. */
function setup(): { repo: string; projects: string } {
  const top = mkdtempSync(join(tmpdir(), "devflow-attack7-idle-"));
  dirs.push(top);
  const repo = join(top, "repo");
  execFileSync("git", ["init", "-q", repo]);
  const projects = join(top, "projects");
  mkdirSync(join(projects, "my-project"), { recursive: true });
  writeFileSync(join(projects, "my-project", "thesis.txt"), "years of work\n");
  return { repo, projects };
}

function untouched(projects: string): void {
  expect(readFileSync(join(projects, "my-project", "thesis.txt"), "utf8")).toBe("years of work\n");
}

describe("devflow clean --idle never reaches through a link to the idle directory", () => {
  it("clean-idle-follows-a-linked-idle-dir: .devflow/worktrees/.idle is a link to the user's projects", () => {
    const { repo, projects } = setup();
    mkdirSync(worktreesDir(repo), { recursive: true });
    symlinkSync(projects, idleCoderCheckoutsDir(repo));
    expect(() => {
      for (const idle of listIdleCheckouts(repo)) removeIdleCheckout(repo, idle.id);
    }).toThrow(/a link on the way/);
    expect(() => removeIdleCheckout(repo, "my-project")).toThrow(/a link on the way/);
    untouched(projects);
  });

  it("clean-idle-follows-a-linked-idle-dir: .devflow/worktrees is a link to a folder whose .idle is the projects", () => {
    const { repo, projects } = setup();
    const elsewhere = join(projects, "..", "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(projects, join(elsewhere, ".idle"));
    mkdirSync(join(repo, ".devflow"), { recursive: true });
    symlinkSync(elsewhere, worktreesDir(repo));
    expect(() => listIdleCheckouts(repo)).toThrow(/a link on the way/);
    expect(() => removeIdleCheckout(repo, "my-project")).toThrow(/a link on the way/);
    untouched(projects);
  });

  it("coder-checkout-reuse-claims-through-a-linked-idle-dir: a task's start and end leave the projects alone", async () => {
    const { projects } = setup();
    mkdirSync(join(projects, "other-project"));
    writeFileSync(join(projects, "other-project", "notes.txt"), "notes\n");
    const repo = makeRepo({ "a.js": "export const a = 1;\n" });
    dirs.push(repo);
    mkdirSync(worktreesDir(repo), { recursive: true });
    symlinkSync(projects, idleCoderCheckoutsDir(repo));
    // The start: nothing through the link is idle, so the task gets a fresh checkout of base.
    const a = await createTaskWorktree({ repoRoot: repo, taskId: "task-a" });
    expect(readFileSync(join(a.worktree, "a.js"), "utf8")).toBe("export const a = 1;\n");
    untouched(projects);
    // The end: nothing "older" is removed there and the checkout is not renamed into it.
    expect(retireCoderCheckout(repo, "task-a", a.worktree, 1)).toBe("removed");
    untouched(projects);
    expect(readFileSync(join(projects, "other-project", "notes.txt"), "utf8")).toBe("notes\n");
    expect(existsSync(join(projects, "task-a"))).toBe(false);
  });

  it("a real idle directory still lists and removes, and none at all lists nothing", () => {
    const { repo } = setup();
    expect(listIdleCheckouts(repo)).toEqual([]);
    expect(removeIdleCheckout(repo, "t1")).toBe("gone");
    const idle = join(idleCoderCheckoutsDir(repo), "t1");
    mkdirSync(idle, { recursive: true });
    writeFileSync(join(idle, "x.txt"), "x\n");
    expect(listIdleCheckouts(repo).map((i) => i.id)).toEqual(["t1"]);
    expect(removeIdleCheckout(repo, "t1")).toBe("removed");
    expect(existsSync(idle)).toBe(false);
  });
});
