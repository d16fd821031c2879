import type { Cassette, CassetteEntry } from "../models/cassette.js";
import { ROLES } from "../models/contract.js";
import { jsonObjectInText } from "../util/json-in-text.js";
import { CASSETTE_SHAPES } from "./cassette-shapes.js";

export interface CassetteCheck {
  /** Entries no run would accept: `calls.<role>[i] (<role> call #n): <field>: <why>`. */
  problems: string[];
  /** Entries a run accepts only as a scripted repair round (an invalid answer, then a valid one). */
  warnings: string[];
  /** Entries per role, for the summary line. */
  counts: Partial<Record<string, number>>;
}

/**
 * Checks every entry of a parsed cassette against what its role's agent accepts (the schema of its
 * structured answer, the tools it binds). The file's own structure is loadCassette's job.
 */
export function checkCassette(cassette: Cassette): CassetteCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const counts: Partial<Record<string, number>> = {};
  for (const role of ROLES) {
    const entries = cassette.calls[role];
    if (entries === undefined) continue;
    counts[role] = entries.length;
    const verdicts = entries.map((entry) => entryProblem(role, entry));
    verdicts.forEach((problem, i) => {
      if (problem === null) return;
      const where = `calls.${role}[${i}] (${role} call #${i + 1})`;
      // An invalid structured answer is followed by its repair round, which takes the next entry.
      const repaired =
        CASSETTE_SHAPES[role].answer !== null && i + 1 < entries.length && verdicts[i + 1] === null;
      if (repaired)
        warnings.push(
          `${where}: ${problem} — accepted only as a scripted repair round answered by call #${i + 2}`,
        );
      else problems.push(`${where}: ${problem}`);
    });
  }
  return { problems, warnings, counts };
}

function entryProblem(role: (typeof ROLES)[number], entry: CassetteEntry): string | null {
  const shape = CASSETTE_SHAPES[role];
  if ("structured" in entry) {
    if (shape.answer === null)
      return `${shape.agent} takes no structured answer: write { "content": "…"${shape.tools.length ? ', "tool_calls": [...]' : ""} }`;
    if (entry.tool !== undefined && entry.tool !== shape.answer.name)
      return `"tool" is ${JSON.stringify(entry.tool)}, but ${shape.agent} answers with ${shape.answer.name}`;
    return schemaProblem(shape.answer.name, shape.answer.schema, entry.structured);
  }
  const calls = entry.tool_calls ?? [];
  if (calls.length === 0) {
    if (shape.text) return null;
    if (shape.answer === null) return null;
    // A structured call also accepts its answer as JSON in the content.
    const json = jsonObjectInText(entry.content);
    if (json === undefined)
      return shape.tools.length
        ? `a text-only answer ends ${shape.agent} without its ${shape.answer.name} answer: call a tool or answer with "structured"`
        : `content is not a JSON object: ${shape.agent} answers with "structured": { … } (${shape.answer.name})`;
    return schemaProblem(shape.answer.name, shape.answer.schema, json);
  }
  for (const [k, call] of calls.entries()) {
    if (shape.answer !== null && call.name === shape.answer.name) {
      const problem = schemaProblem(shape.answer.name, shape.answer.schema, call.args);
      if (problem) return `tool_calls[${k}]: ${problem}`;
      continue;
    }
    if (!shape.tools.includes(call.name)) {
      const known = [...shape.tools, ...(shape.answer && shape.tools.length ? [shape.answer.name] : [])];
      return `tool_calls[${k}].name: ${JSON.stringify(call.name)} is not a tool of ${shape.agent}${known.length ? ` (its tools: ${known.join(", ")})` : " (it has no tools)"}`;
    }
  }
  return null;
}

function schemaProblem(name: string, schema: import("zod").ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  if (parsed.success) return null;
  const issues = parsed.error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join(".");
    return `${path === "" ? "(root)" : path}: ${issue.message}`;
  });
  const more = parsed.error.issues.length > 5 ? `; … ${parsed.error.issues.length - 5} more` : "";
  return `does not fit ${name}: ${issues.join("; ")}${more}`;
}
