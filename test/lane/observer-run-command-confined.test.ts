import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openTaskStore } from "../../src/home/index.js";
import { mountNamespaceWorks } from "../../src/process/mount-namespace.js";
import { cli } from "../support/cli.js";
import { confinementAttack } from "../support/confinement-attack.js";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  demoCassette,
  TASK_ID,
  writeCassette,
} from "../support/lane-harness.js";
import { fingerprintRepo, unexpectedChanges } from "../support/repo-fingerprint.js";

/**
 * Regression: the Observer's run_command ran unconfined (ADR 0021 listed it as open). The
 * Observer's commands run the repository's code, and a re-observation after a re-plan runs in the
 * coder's checkout, so a command it runs (a test file a coder planted, or a prompt-injected
 * command) could write the user's checkout, devflow's artifacts and checkpoint, and the user's
 * `node_modules` by absolute path, and leave a `setsid` loop behind. Fix: the observe node hands
 * the Observer the verification commands' confinement (ADR 0031): PID namespace, the user's
 * checkout read-only, devflow's home hidden, dependencies behind a throwaway layer; the Observer's
 * own checkout stays writable (it writes its repro test there).
 */
const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the Observer's run_command", () => {
  it.runIf(mountNamespaceWorks())(
    "is confined: writes outside its checkout fail, a setsid loop dies with the command, the run still completes",
    async () => {
      const { repo, heartbeat, call, dirs } = confinementAttack("devflow-observer-confined-");
      cleanup.push(...dirs);
      const cassette = demoCassette();
      cassette.calls.observer?.splice(1, 0, call);
      const cassettePath = writeCassette(cassette);
      cleanup.push(dirname(cassettePath));
      const before = fingerprintRepo(repo);
      const run = await cli(
        "iterate",
        DEMO_REQUEST,
        "-r",
        repo,
        "--coder",
        coderScript(CORRECT_FIX),
        "--replay",
        cassettePath,
        "--task-id",
        TASK_ID,
        "--no-input",
      );

      // The loop ran (it wrote a heartbeat) and died with the command.
      expect(existsSync(heartbeat)).toBe(true);
      const beats = readFileSync(heartbeat, "utf8").length;
      await new Promise((r) => setTimeout(r, 400));
      expect(readFileSync(heartbeat, "utf8").length).toBe(beats);
      // Nothing outside the Observer's checkout changed, and the run completed on the real fix.
      expect(existsSync(join(repo, "pwned.txt"))).toBe(false);
      expect(unexpectedChanges(before, fingerprintRepo(repo), TASK_ID)).toEqual([]);
      expect(readFileSync(join(repo, "node_modules", "left-pad", "index.js"), "utf8")).toBe(
        "module.exports = 1;\n",
      );
      expect(run.code, run.err).toBe(0);
      const store = openTaskStore(repo, TASK_ID);
      expect((await store.read("task_artifact"))?.request).toBe(DEMO_REQUEST);
      expect((await store.read("iterator_run"))?.terminal?.verdict).toBe("completed");
    },
    180_000,
  );
});
