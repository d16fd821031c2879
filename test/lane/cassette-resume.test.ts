import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { openTaskStore } from "../../src/home/index.js";
import type { Cassette, CassetteEntry } from "../../src/models/cassette.js";
import { createModelGateway } from "../../src/models/create-gateway.js";
import { startDevflow, waitForFile } from "../support/devflow-process.js";
import {
  coderScript,
  DEMO_REQUEST,
  demoCassette,
  runLane,
  tempDir,
  writeCassette,
} from "../support/lane-harness.js";
import { type ScriptedResponse, startOpenAIServer, toolCallAnswer } from "../support/openai-server.js";

const TASK = "two-critics";

async function killGroup(pid: number): Promise<void> {
  process.kill(-pid, "SIGKILL");
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The demo critic's answer with its first criterion judged unmet. */
function rejectingCritic(): CassetteEntry {
  const accept = structuredClone(demoCassette().calls.critic?.[0]);
  if (!accept || !("structured" in accept)) throw new Error("demo cassette lost its critic answer");
  const criteria = accept.structured.criteria as { verdict: string; reason: string }[];
  criteria[0] = { ...criteria[0], verdict: "unmet", reason: "the leading space is not handled yet" } as never;
  return { structured: { ...accept.structured, criteria, summary: "Not yet: one criterion is unmet." } };
}

/** The demo run with two critic answers: the first rejects attempt-001, the second accepts attempt-002. */
function twoCriticCassette(): Cassette {
  const cassette = demoCassette();
  const accept = cassette.calls.critic?.[0];
  if (!accept) throw new Error("demo cassette lost its critic answer");
  cassette.calls.critic = [rejectingCritic(), accept];
  return cassette;
}

/**
 * A scripted coder counting its runs in `marks`: run 1 applies the fix; run 2 (attempt-002) hangs
 * once when `hangOnce` (so the test can kill devflow there), and otherwise adds a comment line.
 */
function countingCoder(marks: string, hangOnce: boolean): string {
  const count = join(marks, "runs");
  const hung = join(marks, "coder-hanging");
  return coderScript(`
    import * as fs from "node:fs";
    const runs = (fs.existsSync(${JSON.stringify(count)}) ? Number(fs.readFileSync(${JSON.stringify(count)}, "utf8")) : 0) + 1;
    fs.writeFileSync(${JSON.stringify(count)}, String(runs));
    const f = "src/csv-import.js";
    if (runs === 1) {
      fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trim()))"));
    } else if (${hangOnce} && !fs.existsSync(${JSON.stringify(hung)})) {
      fs.writeFileSync(${JSON.stringify(hung)}, "hanging");
      await new Promise((r) => setTimeout(r, 120000));
    } else {
      fs.writeFileSync(f, "// Emails are trimmed on both ends before validation.\\n" + fs.readFileSync(f, "utf8"));
    }
  `);
}

const iterateArgs = (repo: string, coder: string) => [
  "iterate",
  DEMO_REQUEST,
  "-r",
  repo,
  "--task-id",
  TASK,
  "--coder",
  coder,
  "--no-input",
  "-n",
  "2",
  "--timeout",
  "300",
];

async function verdictOf(repo: string) {
  const run = await openTaskStore(repo, TASK).read("iterator_run");
  return {
    verdict: run?.terminal?.verdict,
    attempts: run?.attempts.map((a) => [a.attempt_id, a.verdict]),
  };
}

const UNINTERRUPTED = {
  verdict: "completed",
  attempts: [
    ["attempt-001", "fail"],
    ["attempt-002", "pass"],
  ],
};

/** The cassette's answers as the loopback server sends them, in the lane's call order. */
function serverScript(cassette: Cassette): ScriptedResponse[] {
  const calls = cassette.calls;
  const structured = (tool: string, entry: CassetteEntry | undefined) => {
    if (!entry || !("structured" in entry)) throw new Error(`no structured answer for ${tool}`);
    return toolCallAnswer(tool, entry.structured);
  };
  const observer = (calls.observer ?? []).map((entry) =>
    "structured" in entry
      ? toolCallAnswer("observation_findings", entry.structured)
      : {
          toolCalls: (entry.tool_calls ?? []).map((c) => ({ name: c.name, args: c.args })),
          content: entry.content,
        },
  );
  return [
    structured("task_framing", calls.framer?.[0]),
    ...observer,
    structured("critic_verdict", calls.critic?.[0]),
    structured("repair_guidance", calls.iterator?.[0]),
    structured("critic_verdict", calls.critic?.[1]),
  ];
}

describe("record and replay compose with --resume", () => {
  it("a two-critic replay killed (SIGKILL) after the first critic answer resumes with --replay to completed, like the uninterrupted run", async () => {
    const cassette = writeCassette(twoCriticCassette());

    const straightRepo = createFixtureRepo("csv-import");
    const straight = startDevflow([
      ...iterateArgs(straightRepo, countingCoder(tempDir(), false)),
      "--replay",
      cassette,
    ]);
    expect(await straight.exit, straight.stderr()).toBe(0);
    expect(await verdictOf(straightRepo)).toEqual(UNINTERRUPTED);

    const repo = createFixtureRepo("csv-import");
    const marks = tempDir("devflow-cassette-kill-");
    const args = [...iterateArgs(repo, countingCoder(marks, true)), "--replay", cassette];
    const first = startDevflow(args);
    // attempt-002's coder runs: the first critic answer was used and checkpointed with verify.
    await waitForFile(join(marks, "coder-hanging"), 120_000);
    await killGroup(first.child.pid as number);
    await first.exit;
    expect((await openTaskStore(repo, TASK).read("iterator_run"))?.terminal).toBeNull();

    const resumed = startDevflow([...args, "--resume"]);
    expect(await resumed.exit, resumed.stderr()).toBe(0);
    expect(await verdictOf(repo)).toEqual(UNINTERRUPTED);
  }, 420_000);

  it("a recording killed midway and resumed with --record holds every answer once, in order, and replays to the same verdict", async () => {
    const source = twoCriticCassette();
    const script = serverScript(source);
    const repo = createFixtureRepo("csv-import");
    const marks = tempDir("devflow-record-kill-");
    const cassettePath = join(tempDir("devflow-recorded-"), "recorded.json");
    const args = [...iterateArgs(repo, countingCoder(marks, true)), "--record", cassettePath];
    const key = { OPENAI_API_KEY: "sk-test-record-resume-0000" };

    // Everything up to attempt-002's coder: framer, 4 observer turns, critic #1, repair guidance.
    const before = await startOpenAIServer(script.slice(0, -1));
    try {
      const first = startDevflow(args, { ...key, OPENAI_BASE_URL: before.url });
      await waitForFile(join(marks, "coder-hanging"), 120_000);
      await killGroup(first.child.pid as number);
      await first.exit;
      expect(before.remaining()).toBe(0);
    } finally {
      await before.close();
    }
    // A crash between a model answer and the checkpoint of its node leaves the answer in the
    // cassette but not in the checkpoint's cursor; planted here: it must not survive the resume.
    const killed = JSON.parse(readFileSync(cassettePath, "utf8")) as Cassette;
    expect(Object.fromEntries(Object.entries(killed.calls).map(([r, e]) => [r, e.length]))).toEqual({
      framer: 1,
      observer: 4,
      critic: 1,
      iterator: 1,
    });
    killed.calls.critic?.push({ structured: { orphan: "recorded after the last checkpoint" } });
    writeFileSync(cassettePath, JSON.stringify(killed));

    // The resumed run may ask only for what is left: critic #2.
    const after = await startOpenAIServer(script.slice(-1));
    try {
      const resumed = startDevflow([...args, "--resume"], { ...key, OPENAI_BASE_URL: after.url });
      expect(await resumed.exit, resumed.stderr()).toBe(0);
      expect(after.remaining()).toBe(0);
      expect(after.requests).toHaveLength(1);
    } finally {
      await after.close();
    }
    expect(await verdictOf(repo)).toEqual(UNINTERRUPTED);

    const recorded = JSON.parse(readFileSync(cassettePath, "utf8")) as Cassette;
    const answers = (role: keyof Cassette["calls"]) =>
      (recorded.calls[role] ?? []).map((e) =>
        "structured" in e
          ? e.structured
          : { content: e.content, tool_calls: e.tool_calls?.map((c) => ({ name: c.name, args: c.args })) },
      );
    const expected = (role: keyof Cassette["calls"]) =>
      (source.calls[role] ?? []).map((e) =>
        "structured" in e
          ? e.structured
          : { content: e.content, tool_calls: e.tool_calls?.map((c) => ({ name: c.name, args: c.args })) },
      );
    for (const role of ["framer", "observer", "critic", "iterator"] as const) {
      expect([role, answers(role)]).toEqual([role, expected(role)]);
    }

    // The recorded cassette replays the whole run to the same verdict, every answer used once.
    const gateway = createModelGateway({ mode: "replay", cassettePath });
    const replay = await runLane({
      coder: countingCoder(tempDir(), false),
      taskId: TASK,
      lane: { maxJudgeAttempts: 2 },
      extra: { gateway },
    });
    expect(replay.error).toBeNull();
    expect(await verdictOf(replay.repo)).toEqual(UNINTERRUPTED);
    expect(gateway.unusedReplies()).toEqual({});
  }, 420_000);
});
