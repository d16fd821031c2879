import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { idleCoderCheckoutsDir } from "../home/paths.js";
import { listIdleCheckouts } from "../lanes/iterate/tasks/idle-checkouts.js";
import { listIdleEntries } from "./idle-listing.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `.idle` with checkouts kept at the given index times (null: no `<id>.index`), each dir touched `dirAt`. */
function idleWith(entries: Record<string, { indexAt: number | null; dirAt: number }>): string {
  const repo = mkdtempSync(join(tmpdir(), "devflow-idle-listing-"));
  dirs.push(repo);
  execFileSync("git", ["init", "-q", repo]);
  const idle = idleCoderCheckoutsDir(repo);
  for (const [id, { indexAt, dirAt }] of Object.entries(entries)) {
    mkdirSync(join(idle, id), { recursive: true });
    utimesSync(join(idle, id), dirAt / 1000, dirAt / 1000);
    if (indexAt !== null) {
      writeFileSync(join(idle, `${id}.index`), "index");
      utimesSync(join(idle, `${id}.index`), indexAt / 1000, indexAt / 1000);
    }
  }
  return repo;
}

describe("the one idle-checkout listing (reuse and clean)", () => {
  // Two listings disagreed on an idle checkout without its `<id>.index`: reuse sorted it oldest
  // (time 0), clean by the directory's own mtime. Fix: one listing, index time or 0; such an
  // entry can never be reused, so it is pruned first, claimed last, removed by any --older-than.
  it("orders by the index's time; one without an index counts as the oldest, in both users", () => {
    const repo = idleWith({
      "kept-early": { indexAt: 1_000_000, dirAt: 1_000_000 },
      "kept-late": { indexAt: 3_000_000, dirAt: 3_000_000 },
      "no-index": { indexAt: null, dirAt: 9_000_000 },
    });
    const entries = listIdleEntries(idleCoderCheckoutsDir(repo));
    expect(entries.map((e) => e.id)).toEqual(["no-index", "kept-early", "kept-late"]);
    expect(entries.map((e) => e.retiredAt)).toEqual([0, 1_000_000, 3_000_000]);
    const clean = listIdleCheckouts(repo);
    expect(clean.map((e) => [e.id, e.retiredAt])).toEqual(entries.map((e) => [e.id, e.retiredAt]));
    expect(clean.every((e) => e.bytes > 0)).toBe(true);
  });

  it("lists a planted link as the link, never what it leads to; skips files and private names", () => {
    const repo = idleWith({ real: { indexAt: 2_000_000, dirAt: 2_000_000 } });
    const idle = idleCoderCheckoutsDir(repo);
    symlinkSync(repo, join(idle, "planted"));
    writeFileSync(join(idle, "a-file"), "x");
    mkdirSync(join(idle, ".clean-1-abc"));
    const entries = listIdleEntries(idle);
    expect(entries.map((e) => e.id)).toEqual(["planted", "real"]);
    expect(entries[0]?.path).toBe(join(idle, "planted"));
  });
});
