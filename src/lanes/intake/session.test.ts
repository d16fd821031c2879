import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import {
  framedAnswer,
  hangingCoder,
  isRunning,
  laneCalls,
  replayGateway,
  route,
  unsureFraming,
  useScratch,
} from "../../../test/chat/support/intake-fixtures.js";
import { CORRECT_FIX, coderScript, DEMO_REQUEST, demoCassette } from "../../../test/support/lane-harness.js";
import { parseArtifact } from "../../artifacts/validate.js";
import { openTaskStore } from "../../home/index.js";
import type { Cassette } from "../../models/cassette.js";
import type { CoderConfirmation } from "../iterate/lane/deps.js";
import type { IntakeEvent } from "./events.js";
import { IntakeSession } from "./session.js";

const scratch = useScratch();
const fixture = scratch.repo;
const sessions: IntakeSession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.close();
});

const signal = () => new AbortController().signal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A planning brief the idea lane's model answers with. */
const PLAN = {
  title: "Contact import from Google and Outlook",
  problem: "Only CSV import exists.",
  goals: ["Import from Google", "Import from Outlook"],
  tasks: [
    {
      id: "T1",
      title: "Add an importer interface",
      request: "Extract importContacts in src/csv-import.js behind a source-agnostic function.",
      task_type: "targeted_improvement",
      surface_hints: ["src/csv-import.js"],
      success_criteria: ["the CSV tests still pass"],
      depends_on: [],
    },
  ],
  open_questions: ["Which Google API?"],
  risks: ["OAuth scope review"],
};

/** The demo observer's first turn, then a final answer with this verdict (no failing seam). */
function observerHandingOff(verdict: "reroute_insight" | "promote_idea", summary: string): Cassette["calls"] {
  const observer = laneCalls().observer ?? [];
  const last = observer[3];
  if (!last || !("structured" in last)) throw new Error("demo cassette lost its observer answer");
  const final = {
    structured: {
      ...last.structured,
      status: "inconclusive",
      summary,
      failing_seam: null,
      expected_green_condition: null,
      verdict,
    },
  };
  return { observer: [observer[0], final].flatMap((e) => (e ? [e] : [])) };
}

interface Opened {
  session: IntakeSession;
  events: IntakeEvent[];
}

async function open(
  repo: string,
  calls: Cassette["calls"],
  opts: { threadId?: string; coder?: string; confirm?: (c: CoderConfirmation) => Promise<boolean> } = {},
): Promise<Opened> {
  const events: IntakeEvent[] = [];
  const session = await IntakeSession.open({
    repo,
    ...(opts.threadId ? { threadId: opts.threadId } : {}),
    gateway: replayGateway(calls),
    iterate: {
      coder: opts.coder ?? coderScript(CORRECT_FIX),
      model: "gpt-4.1-mini",
      lane: { maxJudgeAttempts: 3, baseTimeoutMs: 60_000, commandTimeoutMs: 60_000 },
      ...(opts.confirm ? { confirmCoder: opts.confirm } : {}),
    },
    emit: (e) => events.push(e),
  });
  sessions.push(session);
  return { session, events };
}

/**
 * One turn went iterate → `target` and the handoff is linked both ways: the iterate task's
 * promotion_handoff.json points at the record (`downstream_ref`). Returns the record as written
 * (repo-relative path, JSON) and the `source_handoff` it must carry.
 */
async function expectLinkedHandoff(
  repo: string,
  { session, events }: Opened,
  target: "insight" | "idea",
  outcome: string,
): Promise<{ path: string; record: unknown; source: { task_id: string; path: string } }> {
  expect(events.map((e) => e.type).filter((t) => t !== "progress")).toEqual([
    "route",
    "handoff",
    "reply",
    "lane_result",
    "reply",
    "lane_result",
  ]);
  expect(events.find((e) => e.type === "handoff")).toMatchObject({ target });
  const results = await session.results();
  expect(results.map((r) => [r.lane, r.outcome])).toEqual([
    ["iterate", target === "insight" ? "rerouted" : "promoted"],
    [target, outcome],
  ]);
  const [iterate, record] = results;
  const taskId = iterate?.id ?? "";
  const handoff = await openTaskStore(repo, taskId).read("promotion_handoff");
  expect(handoff?.target_lane).toBe(target);
  expect(handoff?.downstream_ref).toBe(record?.id);
  const path = record?.artifact_path ?? "";
  return {
    path,
    record: JSON.parse(readFileSync(join(repo, path), "utf8")),
    source: { task_id: taskId, path: join(".devflow", "iterate", taskId, "promotion_handoff.json") },
  };
}

describe("IntakeSession", () => {
  it("neither: a short reply plus help, and the thread keeps its turns when reopened", async () => {
    const repo = fixture();
    const first = await open(repo, {
      router: [route("neither")],
      neither: [{ content: "Hi! Happy to help." }],
    });
    expect(await first.session.send("hello there", signal())).toBe(true);
    const reply = first.events.find((e) => e.type === "reply");
    expect(reply).toMatchObject({ lane: "neither" });
    expect(reply?.type === "reply" && reply.text).toMatch(/^Hi! Happy to help\.\n\ndevflow can:/);
    const threadId = first.session.thread.id;
    first.session.close();
    sessions.splice(0);

    const again = await open(repo, {}, { threadId });
    const turns = await again.session.turns();
    expect(turns.map((t) => t.role)).toEqual(["user", "assistant"]);
    expect(turns[0]?.content).toBe("hello there");
    expect((await again.session.routes()).map((r) => [r.route, r.message])).toEqual([
      ["neither", "hello there"],
    ]);
    const listed = await IntakeSession.listThreads(repo);
    expect(listed.threads.map((t) => [t.id, t.title, t.turns])).toEqual([[threadId, "hello there", 1]]);
  });

  it("iterate: questions interrupt the conversation; the next message (after a restart) answers and resumes the same task", async () => {
    const repo = fixture();
    const unsure = unsureFraming("Which field has the spaces: the email or the name?");
    const first = await open(repo, { router: [route("iterate")], framer: [unsure] });
    await first.session.send(DEMO_REQUEST, signal());
    const asked = first.events.find((e) => e.type === "questions");
    expect(asked).toMatchObject({ questions: ["Which field has the spaces: the email or the name?"] });
    const taskId = asked?.type === "questions" ? asked.task_id : "";
    expect(await first.session.pendingQuestions()).toMatchObject({ task_id: taskId });
    // Regression (subgraph trap): the lane paused in its own thread (thread id = task id), not
    // inside the conversation's, so `devflow iterate --resume` can continue it too.
    const saver = SqliteSaver.fromConnString(join(repo, ".devflow", "state.sqlite"));
    const laneCheckpoint = await saver.getTuple({ configurable: { thread_id: taskId } });
    saver.db.close();
    expect(laneCheckpoint?.pendingWrites?.some(([, channel]) => channel === "__interrupt__")).toBe(true);
    const threadId = first.session.thread.id;
    first.session.close();
    sessions.splice(0);

    // A fresh session (as after a restart) whose cassette has no router answer: the answer must
    // resume the paused task, never be routed as a new message.
    const second = await open(repo, { framer: [framedAnswer()], ...laneCalls() }, { threadId });
    expect(await second.session.pendingQuestions()).toMatchObject({ task_id: taskId });
    expect(await second.session.send("The email field: a space on each side.", signal())).toBe(true);
    expect(second.events.filter((e) => e.type === "route")).toEqual([]);
    expect(second.events.find((e) => e.type === "lane_result")).toMatchObject({
      lane: "iterate",
      id: taskId,
      outcome: "completed",
    });
    expect(await second.session.pendingQuestions()).toBeNull();

    const store = openTaskStore(repo, taskId);
    const task = await store.read("task_artifact");
    expect(task?.revision).toBe(2);
    expect(task?.prior_turns.at(-1)?.content).toBe("The email field: a space on each side.");
    const turns = await second.session.turns();
    expect(turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(turns[2]?.content).toBe("The email field: a space on each side.");
  });

  it("iterate: the prior turns of the conversation reach the Framer", async () => {
    const repo = fixture();
    const { session } = await open(repo, {
      router: [route("neither"), route("iterate")],
      neither: [{ content: "Hello." }],
      framer: [framedAnswer()],
      ...laneCalls(),
    });
    await session.send("we import contacts from CSV files", signal());
    await session.send(DEMO_REQUEST, signal());
    const [result] = await session.results();
    const task = await openTaskStore(repo, result?.id ?? "").read("task_artifact");
    expect(task?.prior_turns[0]).toEqual({ role: "user", content: "we import contacts from CSV files" });
    expect(result?.outcome).toBe("completed");
  });

  it("iterate: an abort stops the coder process, leaves the task resumable, and /resume finishes it", async () => {
    const repo = fixture();
    const pidFile = join(scratch.dir(), "coder.pid");
    const hanging = hangingCoder(pidFile);
    const controller = new AbortController();
    const first = await open(
      repo,
      { router: [route("iterate")], framer: [framedAnswer()], ...laneCalls() },
      { coder: hanging },
    );
    const sent = first.session.send(DEMO_REQUEST, controller.signal);
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8") === "") await sleep(50);
    const pid = Number(readFileSync(pidFile, "utf8"));
    controller.abort();
    expect(await sent).toBe(true);
    expect(isRunning(pid)).toBe(false);
    const stopped = first.events.find((e) => e.type === "stopped");
    expect(stopped).toMatchObject({
      lane: "iterate",
      message: expect.stringMatching(/resumable: \/resume /),
    });
    const taskId = stopped?.type === "stopped" ? stopped.id : "";
    const run = await openTaskStore(repo, taskId).read("iterator_run");
    expect(run?.terminal).toBeNull();
    expect(run?.run_state).toBe("coding");
    const threadId = first.session.thread.id;
    first.session.close();
    sessions.splice(0);

    const demo = demoCassette().calls;
    const second = await open(
      repo,
      { critic: demo.critic ?? [] },
      { threadId, coder: coderScript(CORRECT_FIX) },
    );
    expect(await second.session.resumeTask(taskId, signal())).toBe(true);
    expect(second.events.find((e) => e.type === "lane_result")).toMatchObject({
      id: taskId,
      outcome: "completed",
    });
    expect((await second.session.results()).map((r) => r.outcome)).toEqual(["stopped", "completed"]);
  });

  it("iterate: asks before spawning the coder, and a no stops the task without any attempt", async () => {
    const repo = fixture();
    const asked: CoderConfirmation[] = [];
    const { session, events } = await open(
      repo,
      { router: [route("iterate")], framer: [framedAnswer()], ...laneCalls() },
      {
        confirm: async (c) => {
          asked.push(c);
          return false;
        },
      },
    );
    await session.send(DEMO_REQUEST, signal());
    expect(asked).toHaveLength(1);
    expect(asked[0]?.seamCommand).toBe("node --test test/email-trim.test.js");
    const result = events.find((e) => e.type === "lane_result");
    expect(result).toMatchObject({ outcome: "blocked" });
    const taskId = result?.type === "lane_result" ? result.id : "";
    const run = await openTaskStore(repo, taskId).read("iterator_run");
    expect(run?.terminal?.reason).toBe("the user declined to start the coder");
    expect(run?.attempts).toEqual([]);
    expect(existsSync(join(repo, ".devflow", "iterate", taskId, "attempts"))).toBe(false);
  });

  it("iterate → insight: a reroute continues in the insight lane within the same turn and links the handoff", async () => {
    const repo = fixture();
    const insightAnswer = {
      answer: "validateRow checks the untrimmed email (src/csv-import.js:16).",
      references: [{ path: "src/csv-import.js", line: 16 }],
    };
    const { session, events } = await open(repo, {
      router: [route("iterate")],
      framer: [framedAnswer()],
      ...observerHandingOff("reroute_insight", "The user wants to understand the validation, not change it."),
      insight: [{ structured: insightAnswer }],
    });
    await session.send("look at why emails with spaces are rejected", signal());

    const linked = await expectLinkedHandoff(repo, { session, events }, "insight", "answered");
    const answer = parseArtifact("insight_answer", linked.record);
    expect(answer.source_handoff).toEqual(linked.source);
    expect(answer.question).toBe("look at why emails with spaces are rejected");
  });

  it("iterate → idea: a promotion continues in the idea lane within the same turn and links the handoff", async () => {
    const repo = fixture();
    const { session, events } = await open(repo, {
      router: [route("iterate")],
      framer: [framedAnswer()],
      ...observerHandingOff("promote_idea", "Importing from Google and Outlook is a feature, not a fix."),
      idea: [{ structured: PLAN }],
    });
    await session.send("let users import contacts from Google and Outlook", signal());

    const linked = await expectLinkedHandoff(repo, { session, events }, "idea", "planned");
    const brief = parseArtifact("idea_brief", linked.record);
    expect(linked.path).toBe(join(".devflow", "idea", brief.id, "idea_brief.json"));
    expect(brief.source_handoff).toEqual(linked.source);
    expect(brief.request).toBe("let users import contacts from Google and Outlook");
  });

  it("idea: a broad request gets a brief shown in the chat and recorded", async () => {
    const repo = fixture();
    const { session, events } = await open(repo, { router: [route("idea")], idea: [{ structured: PLAN }] });
    await session.send("let users import contacts from Google and Outlook", signal());
    const reply = events.find((e) => e.type === "reply");
    expect(reply?.type === "reply" && reply.text).toContain(
      "T1. Add an importer interface [targeted_improvement]",
    );
    const [result] = await session.results();
    expect(result).toMatchObject({ lane: "idea", outcome: "planned" });
    expect(existsSync(join(repo, result?.artifact_path ?? "missing"))).toBe(true);
  });

  it("a failing router ends the turn with an error event and keeps the thread usable", async () => {
    const repo = fixture();
    const { session, events } = await open(repo, { router: [] });
    expect(await session.send("hello", signal())).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "error", message: expect.stringMatching(/router/) });
    expect((await session.turns()).map((t) => t.content)).toEqual(["hello"]);
  });

  it("regression: a turn whose lane failed (the coder cannot run) returns false, not true", async () => {
    const repo = fixture();
    const { session, events } = await open(repo, { router: [route("iterate")] }, { coder: "no-such-coder" });
    expect(await session.send(DEMO_REQUEST, signal())).toBe(false);
    expect(events.find((e) => e.type === "lane_result")).toMatchObject({
      lane: "iterate",
      outcome: "failed",
    });
    // The conversation goes on: the failure is an assistant turn, and the next turn starts clean.
    expect((await session.turns()).at(-1)?.content).toMatch(/^The iterate lane failed: .*no-such-coder/);
  });

  it("refuses an unknown thread id and lists the known ones", async () => {
    const repo = fixture();
    const { session } = await open(repo, {});
    await expect(open(repo, {}, { threadId: "chat-nope" })).rejects.toThrow(
      new RegExp(`no chat thread "chat-nope" in .*; known threads: ${session.thread.id}`),
    );
  });

  it("refuses a path that is not a git repository", async () => {
    await expect(open(scratch.dir(), {})).rejects.toThrow(/not a git repository/);
  });
});
