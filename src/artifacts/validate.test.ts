import { describe, expect, it } from "vitest";
import { exampleArtifacts } from "../../test/support/artifact-examples.js";
import { ALL_SCHEMAS, type SchemaName } from "./schemas/index.js";
import { ajvCheck, parseArtifact, validateArtifact, zodCheck } from "./validate.js";

type Path = (string | number)[];
const DELETE = Symbol("delete");
/** Every JSON kind, plus edge values for the min/int/regex constraints the schemas use. */
const REPLACEMENTS: unknown[] = [DELETE, null, true, 0, -1, 12.5, "", "x", "attempt-001", [], {}, [""]];

function* pathsOf(value: unknown, prefix: Path = []): Generator<Path> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      yield [...prefix, index];
      yield* pathsOf(item, [...prefix, index]);
    }
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      yield [...prefix, key];
      yield* pathsOf(item, [...prefix, key]);
    }
  }
}

function mutate(root: unknown, path: Path, replacement: unknown): unknown {
  const copy: unknown = structuredClone(root);
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
  const last = path.at(-1);
  if (last === undefined) return copy;
  if (Array.isArray(parent) && typeof last === "number") {
    if (replacement === DELETE) parent.splice(last, 1);
    else parent[last] = replacement;
  } else if (typeof parent === "object" && parent !== null) {
    const record = parent as Record<string, unknown>;
    if (replacement === DELETE) delete record[String(last)];
    else record[String(last)] = replacement;
  }
  return copy;
}

const examples = exampleArtifacts();
const names = Object.keys(ALL_SCHEMAS) as SchemaName[];

describe("example artifacts", () => {
  it.each(names)("%s validates with both zod and ajv", (name) => {
    const value = examples[name];
    expect(zodCheck(name, value)).toEqual([]);
    expect(ajvCheck(name, value)).toEqual([]);
    expect(parseArtifact(name, value)).toEqual(value);
  });
});

describe("zod and ajv agree", () => {
  it.each(names)("on every single-field mutation of the %s example", (name) => {
    const disagreements: string[] = [];
    let rejected = 0;
    for (const path of pathsOf(examples[name])) {
      for (const replacement of REPLACEMENTS) {
        const value = mutate(examples[name], path, replacement);
        const zodOk = zodCheck(name, value).length === 0;
        const ajvOk = ajvCheck(name, value).length === 0;
        if (!zodOk) rejected += 1;
        if (zodOk !== ajvOk) {
          const shown = replacement === DELETE ? "<deleted>" : JSON.stringify(replacement);
          disagreements.push(
            `/${path.join("/")} = ${shown}: zod ${zodOk ? "accepts" : "rejects"}, ajv ${ajvOk ? "accepts" : "rejects"}`,
          );
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(rejected).toBeGreaterThan(0);
  });

  it("except on unknown fields: zod strips them, the JSON Schema (what the store enforces) refuses them", () => {
    const value = { ...examples.lesson, lesson_text: "typo of lesson" };
    expect(zodCheck("lesson", value)).toEqual([]);
    expect(ajvCheck("lesson", value)).toEqual([
      "/lesson_text: is not a field of this schema (misspelt or from another version?)",
    ]);
  });
});

describe("problem messages", () => {
  it("point at the missing field itself, not its parent", () => {
    const { task_id: _dropped, ...value } = examples.event;
    expect(ajvCheck("event", value)).toEqual(["/task_id: is required but missing"]);
  });

  it("say 'object or null' once for a nullable field of the wrong type", () => {
    const value = { ...examples.iterator_run, readiness: "ready" };
    expect(ajvCheck("iterator_run", value)).toEqual(["/readiness: must be object or null"]);
  });

  it("report the inner problem when a nullable object is present but wrong inside", () => {
    const readiness = { ...examples.iterator_run.readiness, status: "go" };
    const value = { ...examples.iterator_run, readiness };
    expect(ajvCheck("iterator_run", value)).toEqual([
      '/readiness/status: must be one of "ready", "not_ready", "blocked"',
    ]);
  });

  it("list every problem, with literal and range constraints spelled out", () => {
    const value = { ...examples.promotion_handoff, artifact: "handoff", revision: 0 };
    expect(ajvCheck("promotion_handoff", value)).toEqual([
      '/artifact: must be "promotion_handoff"',
      "/revision: must be >= 1",
    ]);
  });

  it("escape '/' and '~' in keys as JSON pointers do", () => {
    const value = { ...examples.lesson, "a/b~c": 1 };
    expect(ajvCheck("lesson", value)).toEqual([
      "/a~1b~0c: is not a field of this schema (misspelt or from another version?)",
    ]);
  });

  it("validateArtifact throws an ARTIFACT_INVALID error naming the file and the schema file", () => {
    const value = { ...examples.lesson, attempt_id: "attempt-1" };
    const error = (() => {
      try {
        validateArtifact("lesson", value, { file: "/tmp/task/lessons.jsonl", action: "read", line: 3 });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toMatchObject({ code: "ARTIFACT_INVALID", category: "artifact" });
    const message = (error as Error).message;
    expect(message).toContain("/tmp/task/lessons.jsonl line 3: not a valid lesson");
    expect(message).toContain('/attempt_id: must match pattern "^attempt-\\d{3,}$"');
    expect(message).toContain("schemas/lesson.schema.json");
  });
});
