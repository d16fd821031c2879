/**
 * The walk a reused coder checkout gets before its reset (coder-checkout-reuse.ts) finds what git's
 * stat check keeps. Issue 11 moved it from an lstat of every entry in JS (50-90 ms on 20,000
 * files, the biggest step of a following task's setup) to one GNU `find`; that `find` must list
 * exactly what the JS walk lists, or a hard link, a special file or an odd mode bit planted by the
 * previous coder would survive into the next task's checkout:
 * - "find's answer differs from the JS walk" (cause: an expression that misses a case; fix: both
 *   are run here on a tree with every case planted and must agree with the expected list);
 * - "a failing find hides the walk" (cause: an error read as "nothing found"; fix: any error or
 *   stderr output is null, and the JS walk answers).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../../test/support/test-repo.js";
import { entriesByFind, entriesByWalk, entriesStatCannotSee } from "./entries-stat-cannot-see.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    execFileSync("chmod", ["-R", "u+rwx", dir]);
    removeDir(dir);
  }
});

/** A checkout with one of each thing the walk must list, and things it must not. */
function plantedCheckout(): { dir: string; expected: string[] } {
  const dir = tempDir("devflow-stat-blind-");
  const outside = tempDir("devflow-stat-blind-outside-");
  dirs.push(dir, outside);
  const file = (rel: string, mode = 0o644) => {
    writeFileSync(join(dir, rel), `${rel}\n`);
    chmodSync(join(dir, rel), mode);
  };
  mkdirSync(join(dir, "src", "deep"), { recursive: true });
  file("ok.js");
  file("src/ok.js");
  file("src/exec.sh", 0o755);
  // A hard link to a file outside: writing it would write that file.
  writeFileSync(join(outside, "target.js"), "x\n");
  linkSync(join(outside, "target.js"), join(dir, "src", "linked.js"));
  // A special file.
  execFileSync("mkfifo", [join(dir, "src", "deep", "pipe")]);
  // Mode bits a checkout never gives.
  file("setuid.js", 0o4644);
  file("world.js", 0o666);
  file("unreadable.js", 0o200);
  mkdirSync(join(dir, "setgid-dir"));
  chmodSync(join(dir, "setgid-dir"), 0o2755);
  mkdirSync(join(dir, "world-dir"));
  chmodSync(join(dir, "world-dir"), 0o777);
  // A folder its owner cannot enter, with something inside: listed as the folder only.
  mkdirSync(join(dir, "locked"));
  writeFileSync(join(dir, "locked", "inside.js"), "x\n");
  chmodSync(join(dir, "locked"), 0o000);
  // Symlinks are git's to judge (tracked by target), also one to a file listed above.
  symlinkSync("setuid.js", join(dir, "link-to-odd"));
  symlinkSync("/etc/passwd", join(dir, "src", "abs-link"));
  // The top `.git` is skipped whatever it holds; a nested one is not.
  mkdirSync(join(dir, ".git"));
  file(".git/odd", 0o666);
  mkdirSync(join(dir, "src", ".git"));
  file("src/.git/odd", 0o4644);
  const expected = [
    "locked",
    "setgid-dir",
    "setuid.js",
    "src/.git/odd",
    "src/deep/pipe",
    "src/linked.js",
    "unreadable.js",
    "world-dir",
    "world.js",
  ];
  return { dir, expected };
}

describe("what git's stat check cannot see in a reused checkout", () => {
  it("regression: find's answer differs from the JS walk (every planted case, both ways)", async () => {
    const { dir, expected } = plantedCheckout();
    expect([...entriesByWalk(dir)].sort()).toEqual(expected);
    // GNU find is on the machines devflow's CI runs on: the fast path must really answer here.
    const found = await entriesByFind(dir);
    expect(found).not.toBeNull();
    expect([...(found ?? [])].sort()).toEqual(expected);
    expect([...(await entriesStatCannotSee(dir))].sort()).toEqual(expected);
  });

  it("a clean checkout lists nothing", async () => {
    const dir = tempDir("devflow-stat-blind-clean-");
    dirs.push(dir);
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "a.js"), "a\n");
    chmodSync(join(dir, "src", "a.js"), 0o644);
    expect(await entriesByFind(dir)).toEqual([]);
    expect(entriesByWalk(dir)).toEqual([]);
  });

  it("regression: a failing find hides the walk (an error is no answer, never an empty one)", async () => {
    const dir = tempDir("devflow-stat-blind-gone-");
    dirs.push(dir);
    expect(await entriesByFind(join(dir, "missing"))).toBeNull();
  });
});
