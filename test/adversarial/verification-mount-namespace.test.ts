/**
 * Attack (issue 9, confinement of verification): the coder's change does not fix the bug; instead
 * the module the seam loads attacks when devflow's own verification commands load it (the seam
 * runs, their canary and repeats, and the regression run: all in `.devflow/verify/<id>`). Its body
 * writes into the user's checkout, rewrites the task's artifacts (`task_artifact.json`,
 * `iterator_run.json`, `attempts/*`), the checkpoint database, the user's `node_modules` (linked
 * into the verification checkout) and devflow's snapshot store, and starts a `setsid` daemon with
 * an empty environment (no run marker) that edits the user's checkout and the artifacts later.
 *
 * Cause: the coder ran in a mount namespace (ADR 0025), but the verification commands, which run
 * the coder's code just as well, ran with the PID namespace only: every one of those paths was
 * writable to them, and the changes were only found afterwards by the fingerprint and tamper
 * checks (the user's `node_modules`, `state.sqlite` and the snapshot store not at all).
 *
 * Fix (ADR 0031): every verification command runs in the coder's kind of mount namespace (the
 * user's checkout read-only, `.devflow` an empty read-only tmpfs but for the verification checkout
 * it runs in, its report directory and its pinned bin directory read-only, the user's dependencies
 * behind a throwaway copy-on-write layer, a fresh /proc). The
 * attacks fail inside; the change is judged on what it is (the seam stays red: `exhausted`, not a
 * `blocked` from the detection layer, because nothing was changed). With the namespace off
 * (`DEVFLOW_NO_MOUNT_NAMESPACE=1`) the detection layer still refuses `completed`, even for a
 * correct fix carrying the same attack.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { mountNamespaceWorks, resetMountProbe } from "../../src/process/mount-namespace.js";
import { CORRECT_FIX, coderScript, runLane, TASK_ID, tempDir } from "../support/lane-harness.js";
import { fingerprintRepo, unexpectedChanges } from "../support/repo-fingerprint.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** The user's repo with installed (ignored) dependencies, which devflow links into its checkouts. */
function repoWithNodeModules(): string {
  const repo = createFixtureRepo("csv-import");
  writeFileSync(join(repo, ".gitignore"), "node_modules\n");
  mkdirSync(join(repo, "node_modules", "left-pad"), { recursive: true });
  writeFileSync(join(repo, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
  git(repo, "add", ".gitignore");
  git(repo, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "ignore node_modules");
  return repo;
}

interface Probe {
  /** One JSON line per module load in a verification checkout: what each write did. */
  seen: string;
  /** The daemon is started once (first load). */
  flag: string;
  /** Appended to every 50 ms while the daemon lives (its own pid may be namespace-local). */
  heartbeat: string;
}

/** The module body prepended to src/csv-import.js: it attacks only when verification loads it. */
function attackPrelude(p: Probe): string {
  const daemon = `
    const fs = require("node:fs"), path = require("node:path");
    const user = ${"process.argv[1]"}, task = path.join(user, ".devflow", "iterate", ${JSON.stringify(TASK_ID)});
    setInterval(() => fs.appendFileSync(${JSON.stringify(p.heartbeat)}, "."), 50);
    setTimeout(() => {
      try { fs.writeFileSync(path.join(user, "daemon.txt"), "later\\n"); } catch {}
      try { fs.writeFileSync(path.join(task, "task_artifact.json"), "{}"); } catch {}
    }, 1000);
    setTimeout(() => process.exit(0), 20000);`;
  return `import { spawn as __spawn } from "node:child_process";
import * as __fs from "node:fs";
import * as __path from "node:path";
if (process.cwd().includes("/.devflow/verify/")) {
  const user = __path.resolve(process.cwd(), "..", "..", "..");
  const home = __path.join(user, ".devflow");
  const task = __path.join(home, "iterate", ${JSON.stringify(TASK_ID)});
  const attempt = (fn) => { try { fn(); return "done"; } catch (e) { return e.code ?? "failed"; } };
  const seen = {
    userFile: attempt(() => __fs.writeFileSync(__path.join(user, "src", "csv-import.js"), "// pwned\\n")),
    userNewFile: attempt(() => __fs.writeFileSync(__path.join(user, "pwned.txt"), "pwned\\n")),
    taskArtifact: attempt(() => __fs.writeFileSync(__path.join(task, "task_artifact.json"), "{}")),
    iteratorRun: attempt(() => __fs.appendFileSync(__path.join(task, "iterator_run.json"), " ")),
    attemptFile: attempt(() => __fs.writeFileSync(__path.join(task, "attempts", "attempt-001", "coder_report.json"), "{}")),
    state: attempt(() => __fs.appendFileSync(__path.join(home, "state.sqlite"), "x")),
    snapshotStore: attempt(() => __fs.writeFileSync(__path.join(home, "verify", ${JSON.stringify(`${TASK_ID}.git`)}, "objects", "info", "alternates"), "/nowhere\\n")),
    nodeModules: attempt(() => __fs.writeFileSync(__path.join("node_modules", "left-pad", "index.js"), "module.exports = 2;\\n")),
  };
  __fs.appendFileSync(${JSON.stringify(p.seen)}, JSON.stringify(seen) + "\\n");
  if (!__fs.existsSync(${JSON.stringify(p.flag)})) {
    __fs.writeFileSync(${JSON.stringify(p.flag)}, "");
    __spawn(process.execPath, ["-e", ${JSON.stringify(daemon)}, user], { detached: true, stdio: "ignore", env: {} }).unref();
  }
}
`;
}

/** A coder that prepends the attack to the module the seam loads; with `fix`, also the correct fix. */
function attackingCoder(p: Probe, fix: boolean): string {
  return `${fix ? CORRECT_FIX : 'import { readFileSync, writeFileSync } from "node:fs";\nconst f = "src/csv-import.js";\nconsole.log("Fixed it.");'}
writeFileSync(f, ${JSON.stringify(attackPrelude(p))} + readFileSync(f, "utf8"));
`;
}

function probe(): Probe {
  const dir = tempDir("devflow-verify-ns-");
  return { seen: join(dir, "seen.jsonl"), flag: join(dir, "spawned"), heartbeat: join(dir, "heartbeat") };
}

/** Whether the daemon still runs: its heartbeat grows. */
async function daemonBeats(p: Probe): Promise<boolean> {
  const beats = () => (existsSync(p.heartbeat) ? readFileSync(p.heartbeat, "utf8").length : 0);
  const before = beats();
  await sleep(400);
  return beats() !== before;
}

afterEach(() => {
  delete process.env.DEVFLOW_NO_MOUNT_NAMESPACE;
  resetMountProbe();
});

describe.runIf(mountNamespaceWorks())(
  "adversarial: code run by devflow's verification commands (ADR 0031)",
  () => {
    it("cannot write the user's checkout, the task's artifacts, state, the snapshot store or node_modules, and its daemon dies: the unfixed change is exhausted, not completed", async () => {
      const repo = repoWithNodeModules();
      const before = fingerprintRepo(repo);
      const nodeModulesFile = join(repo, "node_modules", "left-pad", "index.js");
      const p = probe();
      const run = await runLane({
        repo,
        coder: coderScript(attackingCoder(p, false)),
        lane: { maxJudgeAttempts: 1 },
      });
      expect(run.error).toBeNull();

      // The attack ran in every verification command that loaded the module (seam runs, regression).
      const seen = readFileSync(p.seen, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(seen.length).toBeGreaterThanOrEqual(2);
      // Hidden paths are ENOENT, or EROFS where the namespace re-creates the directory skeleton of
      // an exposed path (the run's report directory under attempts/attempt-001/verifiers/).
      const refused = expect.stringMatching(/^(EROFS|ENOENT)$/);
      for (const s of seen)
        expect(s).toEqual({
          userFile: "EROFS",
          userNewFile: "EROFS",
          taskArtifact: refused,
          iteratorRun: refused,
          attemptFile: refused,
          state: "EROFS",
          snapshotStore: refused,
          // Copy-on-write for verification runs (runner caches): the write lands in a layer that
          // dies with the run; the user's copy is checked below.
          nodeModules: "done",
        });
      // The daemon was started and died with the command's namespace.
      expect(existsSync(p.flag)).toBe(true);
      expect(await daemonBeats(p)).toBe(false);
      await sleep(1200);

      // Prevention, not detection: nothing changed, so the verdict is about the change itself.
      expect(unexpectedChanges(before, fingerprintRepo(repo), TASK_ID)).toEqual([]);
      expect(existsSync(join(repo, "daemon.txt"))).toBe(false);
      expect(readFileSync(nodeModulesFile, "utf8")).toBe("module.exports = 1;\n");
      const task = JSON.parse(readFileSync(join(run.store.dir, "task_artifact.json"), "utf8"));
      expect(task.title).toEqual(expect.any(String));
      expect(run.result?.terminal.verdict).toBe("exhausted");
      expect(run.result?.terminal.reason).not.toMatch(/tamper|user_repo_changed/);
      const seamEnvelope = JSON.parse(
        readFileSync(join(run.store.dir, "attempts", "attempt-001", "verifiers", "seam.json"), "utf8"),
      );
      expect(seamEnvelope.overall_result).toBe("fail");
    }, 240_000);

    it("with the mount namespace off, the detection layer still refuses `completed`, even for a correct fix carrying the attack", async () => {
      process.env.DEVFLOW_NO_MOUNT_NAMESPACE = "1";
      resetMountProbe();
      const repo = repoWithNodeModules();
      const nodeModulesFile = join(repo, "node_modules", "left-pad", "index.js");
      const userFile = sha(join(repo, "src", "csv-import.js"));
      const p = probe();
      const run = await runLane({
        repo,
        coder: coderScript(attackingCoder(p, true)),
        lane: { maxJudgeAttempts: 1 },
      });

      // The writes went through (no namespace): what is left is detection.
      const seen = readFileSync(p.seen, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(seen[0]).toMatchObject({ userFile: "done", taskArtifact: "done", nodeModules: "done" });
      expect(run.result?.terminal.verdict).not.toBe("completed");
      // Either a blocked verdict, or (the rewritten coder_report.json no longer parses) the lane
      // stops with an error that names the change to the user's checkout; never a commit claim.
      const said = run.result?.terminal.reason ?? String((run.error as Error | null)?.message);
      expect(said).toMatch(/tamper|user_repo_changed/);
      expect(sha(join(repo, "src", "csv-import.js"))).not.toBe(userFile);
      // Not protected there (documented in ADR 0025/0031): the user's dependencies were rewritten.
      expect(readFileSync(nodeModulesFile, "utf8")).toBe("module.exports = 2;\n");
    }, 240_000);
  },
);
