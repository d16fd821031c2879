import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openTaskStore } from "../../src/home/index.js";
import { findExecutable } from "../../src/process/find-executable.js";
import { CORRECT_FIX, coderScript, DEMO_REQUEST, demoCassette } from "../support/lane-harness.js";
import { startOpenAIServer, textAnswer, toolCallAnswer } from "../support/openai-server.js";
import { runPiped } from "./support/chat-process.js";
import { cassetteWith, framedAnswer, route, unsureFraming, useScratch } from "./support/intake-fixtures.js";

const scratch = useScratch();
const fixture = scratch.repo;

/**
 * A coder that is always installed (it needs only /bin/sh): tests that expect an empty stderr
 * must not depend on whether this machine has the default coder (junie), which the chat probes.
 */
const SH_CODER = "command:true";

/** PATH holding only git, so no coder CLI (junie, claude, …) can be found whatever is installed here. */
function pathWithoutCoders(): string {
  const git = findExecutable("git", process.env.PATH);
  if (!git) throw new Error("git is not on PATH");
  const dir = scratch.dir();
  symlinkSync(git, join(dir, "git"));
  return dir;
}

/** The JSON events a --json chat printed. */
function events(out: string): Record<string, unknown>[] {
  return out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A new --json thread with one small-talk message and its reply. */
function chatOnce(repo: string, message: string, reply: string) {
  const cassette = cassetteWith({ router: [route("neither")], neither: [{ content: reply }] });
  return runPiped(
    ["chat", "--repo", repo, "--json", "--replay", cassette, "--coder", SH_CODER],
    `${message}\n`,
  );
}

function threadIdOf(out: string): string {
  const thread = events(out).find((e) => e.type === "thread");
  return String(thread?.id);
}

describe("devflow chat with piped stdin", () => {
  it("ignores empty lines, answers slash commands, routes each message once, and stops at /quit", async () => {
    const repo = fixture();
    const cassette = cassetteWith({ router: [route("neither")], neither: [{ content: "Hello there." }] });
    const run = await runPiped(
      ["chat", "--repo", repo, "--replay", cassette, "--coder", SH_CODER],
      "\n   \nhello\n\n/runs\n/nope\n/show\n/quit\nthis line is never read\n",
    );
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toContain("[neither] the message asks for neither");
    expect(run.out).toContain("Hello there.\n\ndevflow can:");
    expect(run.out).toContain("No runs in this thread yet.");
    expect(run.out).toContain(
      "Unknown command /nope. Known commands: /help, /runs, /show <id>, /thread, /resume <task_id>, /quit.",
    );
    expect(run.out).toContain("Usage: /show <id>");
    expect(run.out).not.toContain("you> ");
  });

  it("a thread resumed in a new process keeps its turns and gives them to the router", async () => {
    const repo = fixture();
    const first = await chatOnce(repo, "we import contacts from CSV files", "Noted.");
    expect(first.code).toBe(0);
    const threadId = threadIdOf(first.out);

    const server = await startOpenAIServer([
      toolCallAnswer("route_decision", {
        route: "neither",
        rationale: "a follow-up remark",
        confidence: 0.7,
      }),
      textAnswer("Sure."),
    ]);
    try {
      const second = await runPiped(
        ["chat", "--repo", repo, "--json", "--thread", threadId, "--coder", SH_CODER],
        "/thread\nand they are messy\n",
        { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-chat-000000" },
      );
      expect(second.err).toBe("");
      expect(second.code).toBe(0);
      const seen = events(second.out);
      expect(seen[0]).toMatchObject({ type: "thread", id: threadId, turns: 1, resumed: true });
      expect(seen.find((e) => e.type === "command")).toMatchObject({
        command: "thread",
        data: { id: threadId, turns: 1 },
      });
      const routerPrompt = JSON.stringify(server.requests[0]?.body.messages?.at(-1)?.content);
      expect(routerPrompt).toContain("user: we import contacts from CSV files");
      expect(routerPrompt).toContain("assistant: Noted.");
      expect(routerPrompt).toContain("and they are messy");
    } finally {
      await server.close();
    }
    const listed = await runPiped(["chat", "--repo", repo, "--list", "--json"], "");
    expect(events(listed.out)[0]).toMatchObject({
      threads: [{ id: threadId, turns: 2, title: "we import contacts from CSV files" }],
    });
  });

  it("interrupt → answer → resume: the lane's questions end one process, the answer in the next resumes the task", async () => {
    const repo = fixture();
    const unsure = unsureFraming("Which field has the spaces: the email or the name?");
    const coder = coderScript(CORRECT_FIX);
    const first = await runPiped(
      [
        "chat",
        "--repo",
        repo,
        "--coder",
        coder,
        "--replay",
        cassetteWith({ router: [route("iterate")], framer: [unsure] }),
      ],
      `${DEMO_REQUEST}\n`,
    );
    expect(first.code).toBe(0);
    expect(first.out).toContain("I need to know:\n  - Which field has the spaces: the email or the name?");
    const threadId = (first.out.match(/new thread (\S+) on/) ?? [])[1] ?? "";

    const demo = demoCassette().calls;
    const rest = cassetteWith({
      framer: [framedAnswer()],
      observer: demo.observer ?? [],
      iterator: demo.iterator ?? [],
      critic: demo.critic ?? [],
    });
    // Piped input is never asked to confirm the coder (its next line is a message): --yes starts it.
    const second = await runPiped(
      ["chat", "--repo", repo, "--thread", threadId, "--coder", coder, "--replay", rest, "--yes"],
      "The email field, a space on each side.\n/runs\n",
    );
    // stderr carries the task's progress like `devflow iterate` (ADR 0049), and no error or warning.
    expect(second.err).not.toMatch(/^devflow: /m);
    expect(second.err).toMatch(/^commit +✓ /m);
    expect(second.code).toBe(0);
    expect(second.out).toContain("waiting for your answer:\n  - Which field has the spaces");
    expect(second.out).not.toContain("Start it? [y/N]");
    expect(second.out).toMatch(/\ncompleted: /);
    const taskId = (second.out.match(/\.devflow\/iterate\/(\S+)/) ?? [])[1] ?? "";
    expect(second.out).toMatch(new RegExp(`${taskId}\\s+iterate\\s+completed`));
    const task = await openTaskStore(repo, taskId).read("task_artifact");
    expect(task?.revision).toBe(2);
  });

  // Bug pinned (issue 11): without --yes, a piped chat asked "Start it? [y/N]" and read the answer
  // from stdin, so the user's next message was eaten as the answer (and a message starting with "y"
  // started the coder). Fix: when stdin is not a terminal the chat never asks (repl.ts `canAsk`); it
  // does not start the coder, says in one line to pass --yes, and the next line stays a message.
  it("regression: without --yes, piped input is never asked to confirm the coder; the next line stays a message", async () => {
    const repo = fixture();
    const demo = demoCassette().calls;
    const cassette = cassetteWith({
      router: [route("iterate"), route("neither")],
      framer: [framedAnswer()],
      observer: demo.observer ?? [],
      neither: [{ content: "Hello again." }],
    });
    const run = await runPiped(
      ["chat", "--repo", repo, "--coder", coderScript(CORRECT_FIX), "--replay", cassette],
      `${DEMO_REQUEST}\nyes, and hello\n`,
    );
    expect(run.out).not.toContain("Start it? [y/N]");
    expect(run.err).toMatch(
      /^devflow: not starting the coder for \S+: stdin is not a terminal, so devflow does not ask; pass --yes to start coders from piped input; the task ends blocked\n/m,
    );
    // The second line was routed as a message of its own, not taken as the answer.
    expect(run.out).toContain("[neither] the message asks for neither");
    expect(run.out).toContain("Hello again.");
  });

  it("refuses an unknown thread id, listing the known threads", async () => {
    const repo = fixture();
    const empty = await runPiped(["chat", "--repo", repo, "--json", "--replay", cassetteWith({})], "");
    const first = await chatOnce(repo, "hello", "Hi.");
    const known = threadIdOf(first.out);
    // A chat left without a message is not kept as a thread.
    expect(threadIdOf(empty.out)).not.toBe(known);
    const run = await runPiped(
      ["chat", "--repo", repo, "--thread", "chat-missing", "--replay", cassetteWith({})],
      "",
    );
    expect(run.code).toBe(2);
    expect(run.err).toContain(`no chat thread "chat-missing" in ${repo}; known threads: ${known}\n`);
  });

  it("regression: an unknown --thread is refused before the model gateway asks for OPENAI_API_KEY", async () => {
    const repo = fixture();
    const run = await runPiped(["chat", "--repo", repo, "--thread", "chat-nope"], "hello\n", {
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
    });
    expect(run.code).toBe(2);
    expect(run.err).toContain(`no chat thread "chat-nope" in ${repo}; there are no threads yet`);
    expect(run.err).not.toContain("OPENAI_API_KEY");
  });

  it("regression: a turn whose lane failed (coder not installed) makes the piped chat exit non-zero", async () => {
    const repo = fixture();
    const cassette = cassetteWith({ router: [route("iterate")] });
    const run = await runPiped(["chat", "--repo", repo, "--replay", cassette], `${DEMO_REQUEST}\n`, {
      PATH: pathWithoutCoders(),
    });
    expect(run.out).toContain('The iterate lane failed: coder "junie" is not installed (Install Junie');
    expect(run.code).toBe(1);
  });

  it("regression: a coder that is not installed is reported once at start, and other lanes still answer", async () => {
    const repo = fixture();
    const cassette = cassetteWith({ router: [route("neither")], neither: [{ content: "Hello there." }] });
    const run = await runPiped(["chat", "--repo", repo, "--replay", cassette], "hello\n", {
      PATH: pathWithoutCoders(),
    });
    expect(run.code).toBe(0);
    const warnings = run.err.split("\n").filter((l) => l.startsWith("devflow: warning:"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^devflow: warning: coder "junie" is not installed \(Install Junie: .*JUNIE_API_KEY/,
    );
    expect(run.out).toContain("Hello there.\n\ndevflow can:");

    const json = await runPiped(["chat", "--repo", repo, "--json", "--replay", cassetteWith({})], "", {
      PATH: pathWithoutCoders(),
    });
    expect(events(json.out).filter((e) => e.type === "warning")).toEqual([
      { type: "warning", message: expect.stringMatching(/^coder "junie" is not installed \(Install Junie/) },
    ]);
  });

  /**
   * Regression (issue 10): chat took no request size cap from the config files, so a message
   * over `limits.max_request_bytes` was routed and copied into every prompt and checkpoint. Fix:
   * the cap reaches the chat session, which refuses such a message before routing or storing it.
   */
  it("regression: a message over limits.max_request_bytes from the repo's config file is refused, the next one is routed", async () => {
    const repo = fixture();
    writeFileSync(join(repo, "devflow.config.json"), JSON.stringify({ limits: { max_request_bytes: 40 } }));
    const long = "x".repeat(41);
    const run = await chatOnce(repo, `${long}\nhello`, "Hello there.");
    const evs = events(run.out);
    expect(evs.filter((e) => e.type === "error")).toEqual([
      expect.objectContaining({
        message: expect.stringContaining("the request is 41 bytes, over the limit of 40 bytes"),
      }),
    ]);
    // Only "hello" reached the router (the cassette holds one route) and the thread.
    expect(evs.filter((e) => e.type === "route")).toHaveLength(1);
    expect(run.out).not.toContain(long);
    expect(run.code).toBe(1);
  });

  /**
   * Regression (review of stop 18): a turn that threw (`/resume` of a task that does not exist)
   * printed its error but was not counted, so the chat exited 0 and its `--json` result line said
   * `failed_turns: 0`. Fix: a thrown turn counts as a failed turn.
   */
  it("regression: /resume of a missing task is a failed turn: exit 1 and failed_turns 1 in the result line", async () => {
    const repo = fixture();
    const run = await runPiped(
      ["chat", "--repo", repo, "--json", "--replay", cassetteWith({}), "--coder", SH_CODER],
      "/resume no-such-task\n",
    );
    const evs = events(run.out);
    expect(evs.filter((e) => e.type === "error")).toEqual([
      expect.objectContaining({ message: expect.stringContaining('no iterate task "no-such-task"') }),
    ]);
    expect(evs.at(-1)).toMatchObject({ type: "result", exit_code: 1, failed_turns: 1 });
    expect(run.code).toBe(1);
  });

  it("refuses a repo path that is not a git repository before doing anything", async () => {
    const dir = scratch.dir();
    const run = await runPiped(["chat", "--repo", dir, "--replay", cassetteWith({})], "hello\n");
    expect(run.code).toBe(2);
    expect(run.err).toContain(`not a git repository: ${dir}`);
    expect(existsSync(join(dir, ".devflow"))).toBe(false);
  });
});
