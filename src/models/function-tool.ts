import { z } from "zod";

/** An OpenAI function tool definition, the shape chat-completions `tools` take. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The function tool for a structured answer. Its parameters are zod 4's JSON Schema for the
 * schema's *input* (what the model must send; defaults may be omitted), with the "$schema" marker
 * dropped (some OpenAI-compatible servers reject unknown top-level keys) and zod's ±2^53 bounds on
 * plain integers pruned (noise in every prompt). Non-strict function calling: strict mode would
 * require every property to be required, which optional zod fields are not; zod validates instead.
 */
export function functionTool(name: string, description: string, schema: z.ZodType): FunctionTool {
  if (!FUNCTION_NAME.test(name)) {
    throw new TypeError(
      `structured call name ${JSON.stringify(name)} must match ${FUNCTION_NAME} (OpenAI function names)`,
    );
  }
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = z.toJSONSchema(schema, { io: "input" });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new TypeError(`structured call ${name}: its zod schema has no JSON Schema form (${why})`);
  }
  const { $schema: _marker, ...parameters } = jsonSchema;
  if (parameters.type !== "object") {
    throw new TypeError(
      `structured call ${name}: the schema must be a z.object (function parameters are objects)`,
    );
  }
  return {
    type: "function",
    function: { name, description, parameters: pruneSafeIntegerBounds(parameters) },
  };
}

function pruneSafeIntegerBounds(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = prune(value);
  }
  return out;
}

function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (typeof value === "object" && value !== null) return pruneSafeIntegerBounds({ ...value });
  return value;
}
