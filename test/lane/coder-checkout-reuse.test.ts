/**
 * Two tasks in a row on one repository through the real lane (real git, real coder processes,
 * replayed model): the first task's coder checkout is kept idle when the task ends and the second
 * task's coder starts in it, reset to the base (ADR 0050, fourth slice). The first coder is hostile
 * and leaves behind everything a checkout could carry over: its edits, an untracked and an ignored
 * file, a hook and config in its git dir, a world-writable file and a hard link.
 * The second coder must see exactly the base (it prints what it saw; its output is an artifact), and the
 * second task's change, verified and committed, must hold nothing of the first.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { idleCoderCheckoutsDir } from "../../src/home/paths.js";
import { removeFinishedWorktree } from "../../src/lanes/iterate/tasks/finish-worktree.js";
import { resetContainmentProbe } from "../../src/process/containment.js";
import { retireCoderCheckout } from "../../src/workspace/coder-checkout-reuse.js";
import { CORRECT_FIX, coderScript, runLane } from "../support/lane-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

describe("a task's coder checkout reused by the next task", () => {
  it("gives the next coder exactly the base, with nothing the previous coder left", async () => {
    const repo = createFixtureRepo("csv-import");
    const hostile = `
// readFileSync and writeFileSync come with CORRECT_FIX's import (a second import of them is a SyntaxError).
import { chmodSync, linkSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
${CORRECT_FIX}
writeFileSync("planted.txt", "from the first coder\\n");
mkdirSync("node_modules/evil", { recursive: true });
writeFileSync("node_modules/evil/index.js", "export default 1;\\n");
mkdirSync(".git/hooks", { recursive: true });
writeFileSync(".git/hooks/post-checkout", "#!/bin/sh\\necho pwned\\n", { mode: 0o755 });
execFileSync("git", ["config", "core.hooksPath", ".git/hooks"]);
chmodSync("package.json", 0o666);
linkSync("README.md", "target.txt");
`;
    // One attempt: whatever verdict the first task gets (its leftovers are findings), it is finished.
    const first = await runLane({
      repo,
      taskId: "first",
      coder: coderScript(hostile),
      lane: { maxJudgeAttempts: 1 },
    });
    expect(first.error).toBeNull();
    expect(first.result?.terminal.verdict).toBeDefined();
    expect(await removeFinishedWorktree(first.result?.artifactDir ?? "", "first")).toEqual({
      end: "kept_idle",
      idlePath: join(idleCoderCheckoutsDir(repo), "first"),
    });
    expect(readdirSync(idleCoderCheckoutsDir(repo))).toContain("first");

    const observer = `
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
const probe = (f) => { try { return f(); } catch (error) { return \`error: \${error.message}\`; } };
const seen = {
  planted: probe(() => existsSync("planted.txt")),
  nodeModules: probe(() => existsSync("node_modules/evil")),
  hook: probe(() => existsSync(".git/hooks/post-checkout")),
  config: probe(() => readFileSync(".git/config", "utf8")),
  fixed: probe(() => readFileSync("src/csv-import.js", "utf8").includes("EMAIL.test(row.email.trim())")),
  status: probe(() => execFileSync("git", ["status", "--porcelain", "--ignored"], { encoding: "utf8" })),
  packageMode: probe(() => statSync("package.json").mode & 0o777),
  readmeLinks: probe(() => statSync("README.md").nlink),
};
// Confined coders cannot write outside their checkout: what it saw goes to its output (an artifact).
console.log(\`SEEN \${JSON.stringify(seen)}\`);
${CORRECT_FIX}
`;
    const second = await runLane({ repo, taskId: "second", coder: coderScript(observer) });
    expect(second.error).toBeNull();
    expect(second.result?.terminal.verdict).toBe("completed");
    // It was reused: the idle checkout is gone, the second task's is where a new one would be.
    expect(existsSync(join(idleCoderCheckoutsDir(repo), "first"))).toBe(false);
    // And the run says so (one info event, before the first node).
    const reuse = second.events.find((e) => e.node === "coder-checkout");
    expect(reuse?.detail).toEqual({ reused_from: "first", declined: [] });
    expect(
      first.events.some((e) => e.node === "coder-checkout"),
      "a fresh checkout is not reported",
    ).toBe(false);
    const saw = seenLine(second.result?.artifactDir ?? "");
    expect(saw).toMatchObject({
      planted: false,
      nodeModules: false,
      hook: false,
      fixed: false,
      // Only the seam test devflow's observe step wrote before the coder started.
      status: "?? test/email-trim.test.js\n",
      packageMode: 0o666 & ~process.umask(),
      readmeLinks: 1,
    });
    expect(saw.config).not.toContain("hooksPath");
    // The second task's commit holds its own change and nothing of the first coder's leftovers.
    const changed = git(repo, "diff", "--name-only", "HEAD", "devflow/second").trim().split("\n").sort();
    expect(changed).toContain("src/csv-import.js");
    for (const leftover of ["planted.txt", "node_modules/evil/index.js", "package.json", "README.md"])
      expect(changed).not.toContain(leftover);
  }, 300_000);
});

/**
 * Regression (session-23 review, reuse-scan-passes-an-earlier-tasks-nondumpable-leftover-attack23):
 * where coders get no PID namespace, a leftover that cleared its environment survives its run, and a
 * non-dumpable one that started before the claimed checkout's task began is invisible to the claim's
 * scan; it followed the reused checkout into the next task. Fix: no coder checkout is kept idle or
 * reused where a run's leftovers do not die with it (`runLeftoversDieWithTheRun`).
 */
describe("without a PID namespace for coders", () => {
  it("a finished task's coder checkout is removed, and an idle one is not reused", async () => {
    const repo = createFixtureRepo("csv-import");
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    resetContainmentProbe();
    try {
      const first = await runLane({ repo, taskId: "first", coder: coderScript(CORRECT_FIX) });
      expect(first.result?.terminal.verdict).toBe("completed");
      const checkout = join(repo, ".devflow", "worktrees", "first");
      expect(await removeFinishedWorktree(first.result?.artifactDir ?? "", "first")).toEqual({
        end: "removed",
      });
      expect(existsSync(checkout)).toBe(false);

      // An idle checkout kept by an earlier devflow that had namespaces: left alone, not reused.
      const other = await runLane({ repo, taskId: "other", coder: coderScript(CORRECT_FIX) });
      expect(retireCoderCheckout(repo, "other", join(repo, ".devflow", "worktrees", "other"), 1)).toBe(
        "kept_idle",
      );
      const second = await runLane({ repo, taskId: "second", coder: coderScript(CORRECT_FIX) });
      expect(other.error ?? second.error).toBeNull();
      expect(second.events.some((e) => e.node === "coder-checkout")).toBe(false);
      expect(readdirSync(idleCoderCheckoutsDir(repo))).toContain("other");
    } finally {
      delete process.env.DEVFLOW_NO_PID_NAMESPACE;
      resetContainmentProbe();
    }
  }, 300_000);
});

/** The observer's `SEEN {...}` line, from whichever artifact holds the coder's output. */
function seenLine(dir: string): Record<string, unknown> {
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    // The raw output line (a JSON artifact holds it escaped, which does not parse).
    const match = /SEEN (\{[^\n]*\})/.exec(readFileSync(path, "utf8"));
    try {
      if (match?.[1]) return JSON.parse(match[1]);
    } catch {}
  }
  throw new Error(`no SEEN line in ${dir}`);
}
