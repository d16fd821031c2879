/**
 * Issue 11, "Leftovers": a URL task (`iterate -r <url> -b <base-dir>`) leaves its clone
 * `<base-dir>/<id>` (ADR 0036), and `devflow clean` never removed one, even of a task that failed.
 * Fix (ADR 0049): `clean --clones <base-dir>` finds the clones there (a folder named after the one
 * task it holds, whose run record names the folder as its repository) and removes the selected
 * ones whole; a completed one only when named (its result branch lives only there). A real URL task
 * through the bin, a real bare remote, a folder of the user's own next to it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { DEMO_CASSETTE } from "../../src/fixtures/demo.js";
import { runDevflow } from "../faults/cli-process.js";
import { bareRemote } from "../support/git-remote.js";
import { coderScript, DEMO_REQUEST, tempDir } from "../support/lane-harness.js";

let base: string;
let remote: { dir: string; url: string };

beforeAll(async () => {
  remote = bareRemote(createFixtureRepo("csv-import"));
  base = tempDir("devflow-clones-");
  // A folder of the user's own in the base dir, named like a task id: not a clone of devflow's.
  mkdirSync(join(base, "mine"));
  execFileSync("git", ["init", "-q", join(base, "mine")]);
  const run = await runDevflow(
    [
      "iterate",
      DEMO_REQUEST,
      "-r",
      remote.url,
      "-b",
      base,
      "--task-id",
      "broken",
      "--coder",
      coderScript(`console.error("no idea"); process.exit(1);`),
      "--replay",
      DEMO_CASSETTE,
      "-n",
      "1",
      "--no-input",
    ],
    {},
  );
  expect(run.code, run.stderr).toBe(4);
  expect(existsSync(join(base, "broken", ".devflow", "iterate", "broken"))).toBe(true);
}, 300_000);

describe("clean --clones <base-dir>", () => {
  it("--dry-run names the failed task's clone and removes nothing; then it goes, the user's folder stays", async () => {
    const dry = await runDevflow(["clean", "--clones", base, "--failed", "--dry-run"], {});
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(`^would remove clone ${join(base, "broken")} \\(broken, exhausted\\)`, "m"),
    );
    expect(existsSync(join(base, "broken"))).toBe(true);

    const run = await runDevflow(["clean", "--clones", base, "--failed"], {});
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^removed clone \S+broken \(broken, exhausted\)/m);
    expect(existsSync(join(base, "broken"))).toBe(false);
    expect(existsSync(join(base, "mine", ".git"))).toBe(true);
    expect(existsSync(remote.dir)).toBe(true);
  });

  it("asks which clones without a selection (exit 2)", async () => {
    const run = await runDevflow(["clean", "--clones", base], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("say which clones: --task <id>, --older-than <duration>");
  });
});
