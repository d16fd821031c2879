import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openTaskStore } from "../../src/home/index.js";
import { CORRECT_FIX, coderScript, DEMO_REQUEST, demoCassette } from "../support/lane-harness.js";
import { runPiped, runPty } from "./support/chat-process.js";
import { cassetteWith, coderRunning, hangingCoder, route, useScratch } from "./support/intake-fixtures.js";

const scratch = useScratch();
const fixture = scratch.repo;

const PROMPT = { expect: "you> " };

describe("devflow chat in a terminal", () => {
  it("slash commands at the prompt, a routed message, then /quit", async () => {
    const repo = fixture();
    const cassette = cassetteWith({
      router: [route("neither")],
      neither: [{ content: "Hi, I am devflow." }],
    });
    const run = await runPty(
      ["chat", "--repo", repo, "--replay", cassette],
      [
        PROMPT,
        { send: "/help\r" },
        { expect: "/resume <task_id>\\s+continue an iterate task" },
        PROMPT,
        { send: "/bogus\r" },
        { expect: "Unknown command /bogus\\. Known commands: /help, /runs" },
        PROMPT,
        { send: "hi\r" },
        { expect: "Hi, I am devflow\\.\\s+devflow can:" },
        PROMPT,
        { send: "/thread\r" },
        { expect: "messages  1" },
        PROMPT,
        { send: "/show nothing-here\r" },
        { expect: 'No task or record "nothing-here"' },
        PROMPT,
        { send: "/quit\r" },
      ],
    );
    expect(run.failed_step, run.output).toBeNull();
    expect(run.exit_code).toBe(0);
  });

  it("Ctrl-C during a run stops the coder and leaves the task resumable; Ctrl-C at the prompt exits", async () => {
    const repo = fixture();
    const pidFile = join(scratch.dir(), "coder.pid");
    const hanging = hangingCoder(pidFile);
    const demo = demoCassette().calls;
    const cassette = cassetteWith({
      router: [route("iterate")],
      framer: demo.framer ?? [],
      observer: demo.observer ?? [],
    });
    const run = await runPty(
      ["chat", "--repo", repo, "--replay", cassette, "--yes", "--coder", hanging],
      [
        PROMPT,
        { send: `${DEMO_REQUEST}\r` },
        // The iterate progress's live line while the coder runs (ADR 0049).
        { expect: "code {6}\\d+s \\(run \\d+s\\) · attempt-001" },
        { wait_file: pidFile },
        { send: "\u0003" },
        { expect: "Stopped\\. The run is resumable: /resume (\\S+)" },
        PROMPT,
        { send: "\u0003" },
      ],
    );
    expect(run.failed_step, run.output).toBeNull();
    expect(run.exit_code).toBe(130);
    expect(coderRunning(pidFile)).toBe(false);

    const taskId = (run.output.match(/resumable: \/resume (\S+)/) ?? [])[1] ?? "";
    const store = openTaskStore(repo, taskId);
    const stopped = await store.read("iterator_run");
    expect(stopped?.terminal).toBeNull();
    expect(stopped?.run_state).toBe("coding");

    // The same thread, a new process: /resume finishes the task from its checkpoint.
    const threadId = (run.output.match(/new thread (\S+) on/) ?? [])[1] ?? "";
    const resumed = await runPiped(
      [
        "chat",
        "--repo",
        repo,
        "--thread",
        threadId,
        "--yes",
        "--coder",
        coderScript(CORRECT_FIX),
        "--replay",
        cassetteWith({ critic: demo.critic ?? [] }),
      ],
      `/resume ${taskId}\n/runs\n`,
    );
    // stderr carries the task's progress like `devflow iterate` (ADR 0049), and no error or warning.
    expect(resumed.err).not.toMatch(/^devflow: /m);
    expect(resumed.out).toMatch(/\ncompleted: /);
    expect((await store.read("iterator_run"))?.terminal?.verdict).toBe("completed");
    expect(resumed.out).toMatch(new RegExp(`${taskId}\\s+iterate\\s+completed`));
  });
});
