import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { idleCoderCheckoutsDir, worktreesDir } from "../../../home/index.js";
import { listIdleCheckouts, removeIdleCheckout } from "./idle-checkouts.js";

function repoWithIdle(ids: string[]): string {
  const repo = mkdtempSync(join(tmpdir(), "devflow-idle-"));
  execFileSync("git", ["init", "-q", repo]);
  for (const id of ids) {
    const dir = join(idleCoderCheckoutsDir(repo), id);
    mkdirSync(dir, { recursive: true });
    execFileSync("git", ["init", "-q", dir]);
    writeFileSync(join(dir, "work.txt"), `${id}\n`);
    writeFileSync(join(idleCoderCheckoutsDir(repo), `${id}.index`), "index");
  }
  return repo;
}

describe("idle coder checkouts as clean removes them", () => {
  it("one a task claims between the listing and the removal is skipped, and the task's copy is untouched", () => {
    const repo = repoWithIdle(["first", "second"]);
    const listed = listIdleCheckouts(repo).map((i) => i.id);
    expect(listed).toEqual(["first", "second"]);
    // A task claims "first" as reuseIdleCoderCheckout does: one rename into its own worktree path.
    const taken = join(worktreesDir(repo), "next-task");
    renameSync(join(idleCoderCheckoutsDir(repo), "first"), taken);
    expect(removeIdleCheckout(repo, "first")).toBe("gone");
    expect(removeIdleCheckout(repo, "second")).toBe("removed");
    expect(readFileSync(join(taken, "work.txt"), "utf8")).toBe("first\n");
    // The task reads "first.index" after its rename: clean leaves it to the task.
    expect(readdirSync(idleCoderCheckoutsDir(repo))).toEqual(["first.index"]);
  });

  it("a second removal of the same one (two cleans at once) is 'gone', not an error", () => {
    const repo = repoWithIdle(["only"]);
    expect(removeIdleCheckout(repo, "only")).toBe("removed");
    expect(removeIdleCheckout(repo, "only")).toBe("gone");
    expect(listIdleCheckouts(repo)).toEqual([]);
  });
});
