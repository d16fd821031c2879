/**
 * Regression: `devflow clean --orphans` deleted a compose plan's integration branch.
 * Cause: orphans.ts called every `devflow/<id>` branch without an iterate task folder `<id>` an
 * orphan; a plan's branch `devflow/plan-<plan id>` never has one (its tasks are `plan-<id>-t<n>`),
 * so the verified result of a whole plan was listed by `devflow runs` and removed by `clean --orphans`.
 * Fix: a `plan-<id>` branch whose plan folder `.devflow/idea/<id>/` exists belongs to that plan
 * (ADR 0055). A real repository; the real bin in child processes.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { runDevflow } from "../faults/cli-process.js";

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();

describe("regression: clean --orphans deleted a plan's integration branch", () => {
  it("keeps devflow/plan-<id> while its plan folder exists, and still removes a plan branch whose plan is gone", async () => {
    const repo = createFixtureRepo("csv-import");
    const head = git(repo, "rev-parse", "HEAD");
    mkdirSync(join(repo, ".devflow", "idea", "kept"), { recursive: true });
    writeFileSync(join(repo, ".devflow", ".gitignore"), "*\n");
    writeFileSync(join(repo, ".devflow", "idea", "kept", "plan_run.json"), "{}\n");
    git(repo, "branch", "devflow/plan-kept", head);
    git(repo, "branch", "devflow/plan-gone", head);

    const runs = JSON.parse((await runDevflow(["runs", "-r", repo, "--json"], {})).stdout);
    expect(runs.orphans.map((o: { id: string }) => o.id)).toEqual(["plan-gone"]);

    const clean = await runDevflow(["clean", "-r", repo, "--orphans", "--json"], {});
    expect(clean.code, clean.stderr).toBe(0);
    const branches = git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/devflow");
    expect(branches.split("\n")).toEqual(["devflow/plan-kept"]);
  });
});
