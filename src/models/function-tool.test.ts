import { describe, expect, it } from "vitest";
import { z } from "zod";
import { functionTool } from "./function-tool.js";

describe("functionTool: zod 4 schema as an OpenAI function definition", () => {
  it("describes the input the model must send, without $schema and without ±2^53 integer noise", () => {
    const schema = z.object({
      kind: z.enum(["a", "b"]).describe("which"),
      count: z.number().int(),
      ratio: z.number().min(0).max(1),
      tags: z.array(z.string()).default([]),
      note: z.string().nullable().optional(),
    });
    const tool = functionTool("pick", "Pick one.", schema);
    expect(tool).toEqual({
      type: "function",
      function: {
        name: "pick",
        description: "Pick one.",
        parameters: {
          type: "object",
          properties: {
            kind: { type: "string", enum: ["a", "b"], description: "which" },
            count: { type: "integer" },
            ratio: { type: "number", minimum: 0, maximum: 1 },
            tags: { default: [], type: "array", items: { type: "string" } },
            note: { type: ["string", "null"] },
          },
          required: ["kind", "count", "ratio"],
        },
      },
    });
  });

  it("rejects schemas that cannot be function parameters, and bad names", () => {
    expect(() => functionTool("list", "d", z.array(z.string()))).toThrow("the schema must be a z.object");
    expect(() => functionTool("has space", "d", z.object({}))).toThrow("must match");
    expect(() => functionTool("when", "d", z.object({ at: z.date() }))).toThrow("has no JSON Schema form");
  });
});
