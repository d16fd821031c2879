/**
 * Regression: two `devflow chat` processes on one thread lost or garbled turns (issue 10, item 3).
 * Cause: nothing stopped a second process from opening a thread another one had open; both wrote
 * checkpoints of the same LangGraph thread, and whichever wrote last dropped the other's turns.
 * Fix: a per-thread lock in src/home (thread-lock.ts, ADR 0035), taken by IntakeSession.open: a
 * second process is refused with the holder's pid/host and what to do; the lock is released on
 * /quit or end of input, on Ctrl-C and SIGTERM, and taken over from a process that was SIGKILLed.
 * Real processes, piped stdin, one thread.
 */
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openTaskStore } from "../../src/home/index.js";
import { IntakeSession } from "../../src/lanes/intake/session.js";
import { createModelGateway } from "../../src/models/create-gateway.js";
import { DEMO_REQUEST, demoCassette } from "../support/lane-harness.js";
import { type LiveChat, runPiped, startPiped } from "./support/chat-process.js";
import { cassetteWith, coderRunning, hangingCoder, route, useScratch } from "./support/intake-fixtures.js";

const scratch = useScratch();
const SH_CODER = "command:true";
const lockDir = (repo: string, threadId: string) => join(repo, ".devflow", "chat", `${threadId}.lock`);

/** The pid holding the thread's lock: the devflow process itself (tsx runs it as its child). */
const lockOwnerPid = (repo: string, threadId: string): number =>
  (JSON.parse(readFileSync(join(repo, ".devflow", "chat", `${threadId}.owner`), "utf8")) as { pid: number })
    .pid;

/** A cassette that routes one message to `neither` and replies `reply`. */
const smallTalk = (reply: string) =>
  cassetteWith({ router: [route("neither")], neither: [{ content: reply }] });

const chatArgs = (repo: string, threadId: string | null, reply: string) => [
  "chat",
  "--repo",
  repo,
  "--json",
  "--replay",
  smallTalk(reply),
  "--coder",
  SH_CODER,
  ...(threadId ? ["--thread", threadId] : []),
];

/** A chat on the thread that has opened it (so holds its lock) and waits for lines. */
async function holder(repo: string, threadId: string, reply: string): Promise<LiveChat> {
  const chat = startPiped(chatArgs(repo, threadId, reply));
  await chat.waitForOut('"type":"thread"');
  return chat;
}

/** The thread's turns as stored, read in this process once no chat has it open. */
async function storedTurns(repo: string, threadId: string): Promise<string[]> {
  const session = await IntakeSession.open({
    repo,
    threadId,
    gateway: createModelGateway({ mode: "replay", cassettePath: smallTalk("unused") }),
    iterate: { coder: SH_CODER, model: "gpt-4.1-mini", lane: {} },
    emit: () => {},
  });
  try {
    return (await session.turns()).map((t) => `${t.role}: ${t.content.split("\n")[0]}`);
  } finally {
    session.close();
  }
}

async function newThread(repo: string): Promise<string> {
  const first = await runPiped(chatArgs(repo, null, "First reply."), "first message\n");
  expect(first.code).toBe(0);
  const thread = first.out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; id?: string })
    .find((e) => e.type === "thread");
  return String(thread?.id);
}

describe("two devflow chat processes on one thread", () => {
  it("the second is refused with the holder named, in either order, and no turn is lost or garbled", async () => {
    const repo = scratch.repo();
    const threadId = await newThread(repo);
    const expected = ["user: first message", "assistant: First reply."];

    for (const [held, refused] of [
      ["A", "B"],
      ["B", "A"],
    ] as const) {
      const chat = await holder(repo, threadId, `Reply to ${held}.`);
      const second = await runPiped(
        chatArgs(repo, threadId, `Reply to ${refused}.`),
        `message from ${refused}\n`,
      );
      expect(second.code).toBe(2);
      const errLines = second.err.trim().split("\n");
      expect(errLines[0]).toContain(
        `chat thread ${threadId} is open in another devflow chat (pid ${lockOwnerPid(repo, threadId)} on ${hostname()}`,
      );
      expect(errLines[0]).toContain("leave that chat (/quit) first, or start a new thread");
      expect(errLines).toHaveLength(1);
      expect(second.out).not.toContain('"type":"reply"');

      chat.send(`message from ${held}`);
      await chat.waitForOut(`Reply to ${held}.`);
      chat.end();
      const exit = await chat.done;
      expect(exit.code).toBe(0);
      expect(existsSync(lockDir(repo, threadId))).toBe(false);
      expected.push(`user: message from ${held}`, `assistant: Reply to ${held}.`);

      // Once the holder has left, the refused one gets its turn.
      const after = await runPiped(
        chatArgs(repo, threadId, `Reply to ${refused}.`),
        `message from ${refused}\n`,
      );
      expect(after.err).toBe("");
      expect(after.code).toBe(0);
      expected.push(`user: message from ${refused}`, `assistant: Reply to ${refused}.`);
    }
    expect(await storedTurns(repo, threadId)).toEqual(expected);
  }, 240_000);

  it("the lock is released on Ctrl-C and SIGTERM, and taken over after SIGKILL", async () => {
    const repo = scratch.repo();
    const threadId = await newThread(repo);
    const expected = ["user: first message", "assistant: First reply."];

    for (const [signal, code, lockLeft] of [
      ["SIGINT", 130, false],
      ["SIGTERM", 143, false],
      ["SIGKILL", null, true],
    ] as const) {
      const chat = await holder(repo, threadId, "never sent");
      expect(existsSync(lockDir(repo, threadId))).toBe(true);
      process.kill(lockOwnerPid(repo, threadId), signal);
      const exit = await chat.done;
      if (code !== null) expect([signal, exit.code]).toEqual([signal, code]);
      else expect(exit.code).not.toBe(0);
      // Released by the process itself, or (SIGKILL) left behind for the next process to take over.
      expect([signal, existsSync(lockDir(repo, threadId))]).toEqual([signal, lockLeft]);

      const next = await runPiped(chatArgs(repo, threadId, `After ${signal}.`), `after ${signal}\n`);
      expect(next.err).toBe("");
      expect(next.code).toBe(0);
      expected.push(`user: after ${signal}`, `assistant: After ${signal}.`);
    }
    expect(await storedTurns(repo, threadId)).toEqual(expected);
  }, 240_000);

  it("SIGTERM during a turn stops the coder, leaves the task resumable and releases the lock itself", async () => {
    const repo = scratch.repo();
    const pidFile = join(scratch.dir(), "coder.pid");
    const demo = demoCassette().calls;
    const cassette = cassetteWith({
      router: [route("iterate")],
      framer: demo.framer ?? [],
      observer: demo.observer ?? [],
    });
    const chat = startPiped([
      "chat",
      "--repo",
      repo,
      "--json",
      "--replay",
      cassette,
      "--yes",
      "--coder",
      hangingCoder(pidFile),
    ]);
    await chat.waitForOut('"type":"thread"');
    const threadId = String((JSON.parse(chat.output().out.split("\n")[0] ?? "{}") as { id?: string }).id);
    chat.send(DEMO_REQUEST);
    for (let i = 0; i < 1200 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
    expect(coderRunning(pidFile), "the hanging coder runs before the SIGTERM").toBe(true);
    process.kill(lockOwnerPid(repo, threadId), "SIGTERM");
    const exit = await chat.done;
    expect(exit.code, exit.err).toBe(143);
    // Without the chat's own SIGTERM handling the process died at once (proper-lockfile's exit hook
    // still removed the lock dir), leaving the coder running and the owner file behind.
    expect(coderRunning(pidFile)).toBe(false);
    expect(existsSync(lockDir(repo, threadId))).toBe(false);
    expect(existsSync(join(repo, ".devflow", "chat", `${threadId}.owner`))).toBe(false);
    const stopped = exit.out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { type: string; id?: string })
      .find((e) => e.type === "stopped");
    expect(stopped?.id).toBeTruthy();
    const run = await openTaskStore(repo, String(stopped?.id)).read("iterator_run");
    expect(run?.terminal).toBeNull();
  }, 240_000);
});
