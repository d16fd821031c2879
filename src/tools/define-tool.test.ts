import { readFileSync } from "node:fs";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { ToolMessage } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolContext } from "./define-tool.js";
import { defineTool, MAX_TOOL_OUTPUT_BYTES } from "./define-tool.js";
import { listFilesTool } from "./list-files.js";
import { ToolRefusal } from "./tool-refusal.js";

const ctx = (overrides: Partial<ToolContext> = {}): ToolContext => ({
  worktree: "/nonexistent",
  signal: new AbortController().signal,
  written: new Set(),
  ...overrides,
});

/** The fields of a tool spec that these tests do not vary. */
const base = {
  name: "echo",
  description: "Echo the text back.",
  schema: z.object({ text: z.string().min(1) }),
  narrowHint: "ask for fewer repetitions",
};

const echo = defineTool({
  name: "echo",
  description: "Echo the text back.",
  schema: z.object({ text: z.string().min(1), times: z.number().int().min(1).optional() }),
  narrowHint: "ask for fewer repetitions",
  run: async (args) => args.text.repeat(args.times ?? 1),
});

describe("defineTool", () => {
  it("returns invalid arguments as a tool result listing each zod issue instead of throwing", async () => {
    const result = await echo.bind(ctx()).invoke({ text: 3, times: 0 });
    expect(result).toContain("Invalid arguments for echo:");
    expect(result).toMatch(/- text: .*expected string/);
    expect(result).toMatch(/- times: .*>=1/);
    expect(result).toContain("call echo again");
  });

  it("answers an invalid tool call with a ToolMessage for that call id (what the agent loop sees)", async () => {
    const message = await echo
      .bind(ctx())
      .invoke({ id: "call_1", name: "echo", args: {}, type: "tool_call" });
    expect(message).toBeInstanceOf(ToolMessage);
    expect(ToolMessage.isInstance(message) && message.tool_call_id).toBe("call_1");
    expect(ToolMessage.isInstance(message) && String(message.content)).toMatch(/- text: /);
  });

  it("shows the model the real parameters even though langchain's own pre-validation is bypassed", () => {
    const schema = toJsonSchema(echo.bind(ctx()).schema);
    expect(schema).toMatchObject({
      type: "object",
      properties: { text: { type: "string", minLength: 1 }, times: { type: "integer", minimum: 1 } },
      required: ["text"],
    });
  });

  it("passes valid arguments through to run", async () => {
    expect(await echo.bind(ctx()).invoke({ text: "ab", times: 2 })).toBe("abab");
  });

  it("truncates a large result to the cap, keeping head and tail and saying how to narrow", async () => {
    const big = `${"HEAD-".repeat(10)}${"x".repeat(100_000)}${"-TAIL".repeat(10)}`;
    const tool = defineTool({ ...base, run: async () => big }).bind(ctx());
    const result = String(await tool.invoke({ text: "a" }));
    expect(Buffer.byteLength(result)).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_BYTES);
    expect(result.startsWith("HEAD-HEAD-")).toBe(true);
    expect(result).toContain("-TAIL-TAIL");
    expect(result).toContain("bytes omitted");
    expect(result).toContain("ask for fewer repetitions");
  });

  it("honours a per-context output cap", async () => {
    const tool = defineTool({ ...base, run: async () => "y".repeat(5000) }).bind(
      ctx({ maxOutputBytes: 1024 }),
    );
    expect(Buffer.byteLength(String(await tool.invoke({ text: "a" })))).toBeLessThanOrEqual(1024);
  });

  it("returns a refusal's message to the model, and an unexpected error as '<tool> failed'", async () => {
    const refusing = defineTool({
      ...base,
      run: async () => {
        throw new ToolRefusal("not here; try there");
      },
    });
    expect(await refusing.bind(ctx()).invoke({ text: "a" })).toBe("Refused: not here; try there");
    const crashing = defineTool({
      ...base,
      run: async () => {
        throw new Error("disk on fire");
      },
    });
    expect(await crashing.bind(ctx()).invoke({ text: "a" })).toBe("echo failed: disk on fire");
  });

  describe("abort", () => {
    let controller: AbortController;
    beforeEach(() => {
      controller = new AbortController();
    });
    afterEach(() => controller.abort());

    it("refuses to start once the run is aborted", async () => {
      let ran = false;
      const tool = defineTool({
        ...base,
        run: async () => {
          ran = true;
          return "done";
        },
      }).bind(ctx({ signal: controller.signal }));
      controller.abort();
      await expect(tool.invoke({ text: "a" })).rejects.toThrow(/abort/i);
      expect(ran).toBe(false);
    });

    it("stops waiting for a tool that ignores the signal, and passes the signal to the tool", async () => {
      let seen: AbortSignal | undefined;
      const tool = defineTool({
        ...base,
        run: (_args, runCtx) => {
          seen = runCtx.signal;
          return new Promise<string>(() => {});
        },
      }).bind(ctx({ signal: controller.signal }));
      const pending = tool.invoke({ text: "a" });
      await new Promise((r) => setImmediate(r));
      controller.abort(new Error("run aborted by user"));
      await expect(pending).rejects.toThrow("run aborted by user");
      expect(seen?.aborted).toBe(true);
    });
  });

  it("loads descriptions from src/tools/<name>.md", () => {
    const md = readFileSync(new URL("./list_files.md", import.meta.url), "utf8").trim();
    expect(listFilesTool.bind(ctx()).description).toBe(md);
  });
});
