import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { BaseChatModel as ChatModelBase } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { execa } from "execa";
import {
  AIMessage,
  type BaseMessage,
  FakeToolCallingModel,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ObservationFindings, TaskArtifact } from "../../artifacts/schemas/index.js";
import { DevflowError } from "../../errors/index.js";
import type { ModelGateway, Role } from "../../models/contract.js";
import { createModelGateway } from "../../models/index.js";
import { OBSERVER_ANSWER_TOOL, runObserverAgent } from "./observer-agent.js";

/** A chat model that plays a fixed script of assistant turns and records what it was sent. */
class ScriptedChatModel extends ChatModelBase {
  readonly received: BaseMessage[][] = [];
  private turn = 0;

  constructor(private readonly script: (turn: number) => AIMessage) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  // The script decides what is called; the bound tools do not matter to it.
  override bindTools() {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.received.push(messages);
    const message = this.script(this.turn++);
    return { generations: [{ message, text: message.text }] };
  }
}

const call = (id: string, name: string, args: Record<string, unknown>) =>
  new AIMessage({ content: "", tool_calls: [{ id, name, args, type: "tool_call" }] });

/** A real replay gateway (empty cassette) whose observer chat model is the given scripted model. */
async function gatewayWith(model: BaseChatModel): Promise<ModelGateway & { roles: Role[] }> {
  const cassettePath = join(base, "empty-cassette.json");
  await writeFile(cassettePath, JSON.stringify({ version: 1, calls: {} }));
  const roles: Role[] = [];
  const gateway = createModelGateway({ mode: "replay", cassettePath });
  return {
    ...gateway,
    roles,
    chatModel: (role) => {
      roles.push(role);
      return model;
    },
  };
}

const task: TaskArtifact = {
  artifact: "task_artifact",
  task_id: "cart-total-tax",
  revision: 1,
  request: "The cart total ignores tax, please fix it.",
  prior_turns: [],
  created_at: "2025-01-01T00:00:00.000Z",
  updated_at: "2025-01-01T00:00:00.000Z",
  title: "Cart total ignores tax",
  task_type: "error_fix",
  task_details: {
    error_fix: {
      reported_error: "total() returns the net sum",
      error_location_hints: ["src/cart.js"],
      logs_or_trace: null,
    },
    quick_change: null,
    targeted_improvement: null,
  },
  current_behavior: "total([{price: 10}]) returns 10",
  desired_behavior: "total([{price: 10}]) returns 12 (20% tax)",
  surface_hints: { files: ["src/cart.js"], routes: [], components: [], functions: ["total"] },
  facts: ["Tax rate is 20%"],
  assumptions: [],
  blocking_unknowns: [],
  success_criteria: ["total() includes 20% tax"],
  scope_boundary: {
    statement: "Only the cart total",
    allowed_paths: ["src/cart.js"],
    out_of_scope: ["checkout UI"],
  },
  recommended_next_step: "observe",
};

const REPRO = [
  'import assert from "node:assert/strict";',
  'import { total } from "../src/cart.js";',
  "assert.equal(total([{ price: 10 }]), 12);",
  "",
].join("\n");

const seamFindings: ObservationFindings = {
  status: "seam_created",
  summary: "total() sums prices without tax; the new repro test fails with 10 !== 12.",
  evidence: [
    { claim: "total() adds prices only", refs: [{ kind: "file", ref: "src/cart.js:1" }] },
    {
      claim: "The repro test fails",
      refs: [{ kind: "command", ref: "node tests/cart-total.test.mjs", note: "exit code 1, 10 !== 12" }],
    },
  ],
  repro_steps: ["node tests/cart-total.test.mjs"],
  failing_seam: {
    description: "total() of one 10.00 item must be 12.00 with tax",
    command: "node tests/cart-total.test.mjs",
    files: ["tests/cart-total.test.mjs"],
  },
  expected_green_condition: "`node tests/cart-total.test.mjs` exits 0: the total includes 20% tax",
  verdict: "ready_for_coder",
  questions: [],
};

let base: string;
let worktree: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "devflow-observer-"));
  worktree = join(base, "repo");
  const files: Record<string, string> = {
    "package.json": '{ "type": "module" }\n',
    "src/cart.js": "export const total = (items) => items.reduce((sum, item) => sum + item.price, 0);\n",
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(worktree, path)), { recursive: true });
    await writeFile(join(worktree, path), content);
  }
  const git = (...args: string[]) => execa("git", args, { cwd: worktree });
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "fixture");
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe("runObserverAgent", () => {
  it("lists, reads, writes a repro test, runs it red, and returns seam_created with the written file", async () => {
    const script = [
      call("c1", "list_files", { pattern: "src/**" }),
      call("c2", "read_file", { path: "src/cart.js" }),
      call("c3", "write_test_file", { path: "tests/cart-total.test.mjs", content: REPRO }),
      call("c4", "run_command", { command: "node tests/cart-total.test.mjs" }),
      call("c5", OBSERVER_ANSWER_TOOL, seamFindings),
    ];
    const model = new ScriptedChatModel((turn) => script[turn] ?? new AIMessage("script exhausted"));
    const gateway = await gatewayWith(model);

    const result = await runObserverAgent({ gateway, task, worktree, repoMap: "src/cart.js  (total)" });

    expect(gateway.roles).toEqual(["observer"]);
    expect(result.stoppedBy).toBeNull();
    expect(result.findings).toEqual(seamFindings);
    expect(result.writtenFiles).toEqual(["tests/cart-total.test.mjs"]);
    expect(result.toolCalls).toBe(4);
    expect(result.modelCalls).toBe(5);
    expect(await readFile(join(worktree, "tests/cart-total.test.mjs"), "utf8")).toBe(REPRO);

    // The model saw the task and the repo map in its system prompt, and real tool results.
    const system = model.received[0]?.[0];
    expect(system).toBeInstanceOf(SystemMessage);
    expect(system?.text).toContain("Title: Cart total ignores tax");
    expect(system?.text).toContain("1. total() includes 20% tax");
    expect(system?.text).toContain("src/cart.js  (total)");
    expect(system?.text).not.toMatch(/\{\{\w+\}\}/);
    const toolResults = (model.received[4] ?? []).filter((m) => ToolMessage.isInstance(m)).map((m) => m.text);
    expect(toolResults[0]).toContain("src/cart.js");
    expect(toolResults[1]).toContain("1| export const total");
    expect(toolResults[2]).toMatch(/^Created tests\/cart-total.test.mjs/);
    expect(toolResults[3]).toContain("exit code: 1");
    expect(toolResults[3]).toContain("AssertionError");
  });

  it("stops at the model call limit with an honest inconclusive finding, never a seam", async () => {
    // Keeps exploring forever, after having written a test file it never verified.
    const model = new FakeToolCallingModel({
      toolCalls: [
        [{ id: "w1", name: "write_test_file", args: { path: "tests/half.test.mjs", content: REPRO } }],
        ...Array.from({ length: 20 }, (_, i) => [{ id: `l${i}`, name: "list_files", args: {} }]),
      ],
    });

    const result = await runObserverAgent({
      gateway: await gatewayWith(model),
      task,
      worktree,
      repoMap: "",
      limits: { modelCalls: 3 },
    });

    expect(result.stoppedBy).toBe("model_call_limit");
    expect(result.modelCalls).toBe(3);
    expect(result.toolCalls).toBe(3);
    expect(result.findings.status).toBe("inconclusive");
    expect(result.findings.verdict).toBe("needs_more_context");
    expect(result.findings.failing_seam).toBeNull();
    expect(result.findings.expected_green_condition).toBeNull();
    expect(result.findings.evidence).toEqual([]);
    expect(result.findings.summary).toContain("budget of 3 model calls ran out");
    expect(result.findings.summary).toContain("tests/half.test.mjs");
    expect(result.findings.questions.length).toBeGreaterThan(0);
    expect(result.writtenFiles).toEqual(["tests/half.test.mjs"]);
  });

  it("reports an honest inconclusive finding when the model ends without its structured answer", async () => {
    const model = new ScriptedChatModel(() => new AIMessage("I think the bug is in cart.js."));
    const result = await runObserverAgent({ gateway: await gatewayWith(model), task, worktree, repoMap: "" });
    expect(result.stoppedBy).toBe("no_answer");
    expect(result.findings.status).toBe("inconclusive");
    expect(result.findings.failing_seam).toBeNull();
    expect(result.findings.summary).toContain("without giving its structured answer");
  });

  it("sends an answer that breaks the schema back to the model, and accepts the corrected one", async () => {
    const { verdict: _dropped, ...missingVerdict } = seamFindings;
    const script = [
      call("a1", OBSERVER_ANSWER_TOOL, missingVerdict),
      call("a2", OBSERVER_ANSWER_TOOL, seamFindings),
    ];
    const model = new ScriptedChatModel((turn) => script[turn] ?? new AIMessage("script exhausted"));

    const result = await runObserverAgent({ gateway: await gatewayWith(model), task, worktree, repoMap: "" });

    expect(result.findings).toEqual(seamFindings);
    // The repair happens inside the same model turn, so it does not count against the turn limit.
    expect(result.modelCalls).toBe(1);
    expect(model.received).toHaveLength(2);
    const feedback = model.received[1]?.at(-1);
    expect(feedback).toBeInstanceOf(HumanMessage);
    expect(feedback?.text).toMatch(/observation_findings. answer was not accepted: .*verdict/);
  });

  it("fails with MODEL_NO_VALID_ANSWER naming the observer when the repaired answer is still invalid", async () => {
    const { verdict: _dropped, ...missingVerdict } = seamFindings;
    const model = new ScriptedChatModel((turn) => call(`bad${turn}`, OBSERVER_ANSWER_TOOL, missingVerdict));

    const run = runObserverAgent({ gateway: await gatewayWith(model), task, worktree, repoMap: "" });

    await expect(run).rejects.toMatchObject({ code: "MODEL_NO_VALID_ANSWER", details: { role: "observer" } });
    await expect(run).rejects.toThrow(/observer gave an invalid observation_findings answer 2 times/);
  });

  it("retries a transient model failure (rate limit) and goes on", async () => {
    let failed = false;
    const model = new ScriptedChatModel((turn) => {
      if (!failed) {
        failed = true;
        throw new DevflowError("MODEL_RATE_LIMIT", "rate limited (HTTP 429)", { details: { status: 429 } });
      }
      return turn === 1 ? call("ok", OBSERVER_ANSWER_TOOL, seamFindings) : new AIMessage("unexpected");
    });

    const result = await runObserverAgent({
      gateway: await gatewayWith(model),
      task,
      worktree,
      repoMap: "",
      limits: { modelRetryDelayMs: 10 },
    });

    expect(result.findings).toEqual(seamFindings);
  });

  it("does not retry an authentication failure, and surfaces devflow's own error class", async () => {
    let calls = 0;
    const model = new ScriptedChatModel(() => {
      calls++;
      throw new DevflowError("MODEL_AUTH", "authentication failed (HTTP 401). Check OPENAI_API_KEY.", {
        details: { status: 401 },
      });
    });

    const run = runObserverAgent({ gateway: await gatewayWith(model), task, worktree, repoMap: "" });

    await expect(run).rejects.toMatchObject({ code: "MODEL_AUTH" });
    expect(calls).toBe(1);
  });

  it("ends a model that repeats an answered tool call id (which skips the model call limit) at the step limit", async () => {
    // langchain routes straight back to the model when every tool call of the last turn already
    // has an answer, bypassing the before-model hook that enforces the call limit.
    const model = new ScriptedChatModel(() => call("same-id", "list_files", {}));

    const result = await runObserverAgent({
      gateway: await gatewayWith(model),
      task,
      worktree,
      repoMap: "",
      limits: { modelCalls: 3 },
    });

    expect(result.stoppedBy).toBe("step_limit");
    expect(result.findings.status).toBe("inconclusive");
    expect(result.findings.failing_seam).toBeNull();
    expect(result.findings.summary).toContain("step limit");
  });

  it("is driven by a replay cassette whose last entry is a {structured} answer", async () => {
    const notConfirmed: ObservationFindings = {
      status: "not_confirmed",
      summary: "The code adds tax already; could not reproduce.",
      evidence: [{ claim: "src/cart.js exists", refs: [{ kind: "file", ref: "src/cart.js" }] }],
      repro_steps: [],
      failing_seam: null,
      expected_green_condition: null,
      verdict: "needs_more_context",
      questions: ["Which cart shows the wrong total?"],
    };
    const cassettePath = join(base, "observer.json");
    await writeFile(
      cassettePath,
      JSON.stringify({
        version: 1,
        calls: {
          observer: [
            { content: "", tool_calls: [{ name: "search", args: { pattern: "total", literal: true } }] },
            { structured: notConfirmed },
          ],
        },
      }),
    );
    const gateway = createModelGateway({ mode: "replay", cassettePath });

    const result = await runObserverAgent({ gateway, task, worktree, repoMap: "" });

    expect(result.findings).toEqual(notConfirmed);
    expect(result.toolCalls).toBe(1);
    expect(result.modelCalls).toBe(2);
    expect(result.writtenFiles).toEqual([]);
  });
});
