/**
 * Attack: the coder reaches devflow's state and the user's checkout through the file system
 * (issue 9, confinement).
 *
 * Cause: the coder's checkout lives at `<repo>/.devflow/worktrees/<id>`, so `../../state.sqlite`
 * (the checkpoints), `../../iterate/<id>/` (the task's artifacts), `../../..` (the user's checkout
 * and `.git`) and the linked `node_modules` (the user's own) were all plain, writable paths. Edits
 * to artifacts devflow wrote were detected (ADR 0018), the user's checkout fingerprinted (ADR
 * 0020); the checkpoint database and `node_modules` were not protected at all.
 *
 * Fix (ADR 0025, src/process/mount-namespace.ts): on Linux where mount namespaces work, the coder
 * runs in its own mount (and PID, fresh /proc) namespace in which the user's checkout is bound
 * read-only, `.devflow` is covered by an empty read-only tmpfs and only its own checkout is bound
 * back writable. The same attempts now fail; a correct fix still completes.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { mountNamespaceWorks } from "../../src/process/mount-namespace.js";
import { CORRECT_FIX, coderScript, runLane, TASK_ID, tempDir } from "../support/lane-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe.runIf(mountNamespaceWorks())("adversarial: the coder's view of the repository (ADR 0025)", () => {
  it("a coder that reads or writes .devflow/state.sqlite, the task dir, the user's checkout or node_modules fails to, and a correct fix still completes", async () => {
    const repo = createFixtureRepo("csv-import");
    // The user's installed dependencies, ignored, so devflow links them into the checkout.
    writeFileSync(join(repo, ".gitignore"), "node_modules\n");
    mkdirSync(join(repo, "node_modules", "left-pad"), { recursive: true });
    writeFileSync(join(repo, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
    git(repo, "add", ".gitignore");
    git(repo, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "ignore node_modules");
    const main = git(repo, "rev-parse", "main");
    const userFile = sha(join(repo, "src", "csv-import.js"));
    const seen = join(tempDir("devflow-mounts-seen-"), "seen.json");
    const coder = `${CORRECT_FIX}
      import { execFileSync } from "node:child_process";
      import { existsSync, readFileSync as read, writeFileSync as write } from "node:fs";
      import { resolve } from "node:path";
      const attempt = (fn) => { try { fn(); return "done"; } catch (e) { return e.code ?? "failed"; } };
      const home = resolve("..", "..");
      const user = resolve(home, "..");
      const seen = {
        stateVisible: existsSync(resolve(home, "state.sqlite")),
        taskDirVisible: existsSync(resolve(home, "iterate", "${TASK_ID}")),
        readState: attempt(() => read(resolve(home, "state.sqlite"))),
        writeState: attempt(() => write(resolve(home, "state.sqlite"), "x")),
        writeTaskDir: attempt(() => write(resolve(home, "iterate", "${TASK_ID}", "task_artifact.json"), "{}")),
        writeUserCheckout: attempt(() => write(resolve(user, "src", "csv-import.js"), "// evil\\n")),
        writeNodeModules: attempt(() => write(resolve("node_modules", "left-pad", "index.js"), "module.exports = 2;\\n")),
        moveUserMain: attempt(() => execFileSync("git", ["-C", user, "update-ref", "refs/heads/main", "HEAD~0"], { stdio: "ignore" })),
        procRoot: attempt(() => read("/proc/" + process.ppid + "/root" + resolve(home, "state.sqlite"))),
      };
      write(${JSON.stringify(seen)}, JSON.stringify(seen));
    `;
    const run = await runLane({ repo, coder: coderScript(coder) });
    const observed = JSON.parse(readFileSync(seen, "utf8"));
    expect(observed).toEqual({
      stateVisible: false,
      taskDirVisible: false,
      readState: "ENOENT",
      writeState: "EROFS",
      writeTaskDir: "ENOENT",
      writeUserCheckout: "EROFS",
      writeNodeModules: "EROFS",
      moveUserMain: "failed",
      procRoot: "ENOENT",
    });
    // Asserted from the outside too.
    expect(existsSync(join(run.store.dir, "task_artifact.json"))).toBe(true);
    expect(sha(join(repo, "src", "csv-import.js"))).toBe(userFile);
    expect(readFileSync(join(repo, "node_modules", "left-pad", "index.js"), "utf8")).toBe(
      "module.exports = 1;\n",
    );
    expect(git(repo, "rev-parse", "main")).toBe(main);
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    expect(git(repo, "show", `devflow/${TASK_ID}:src/csv-import.js`)).toContain("row.email.trim()");
  }, 180_000);
});
