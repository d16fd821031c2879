import type { ErrorObject } from "ajv/dist/2020.js";
import type { z } from "zod";

/** RFC 6901 pointer; the document root is shown as `(root)` because an empty string reads as nothing. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  return path.map((key) => `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

const ROOT = "(root)";
const child = (instancePath: string, key: string): string =>
  `${instancePath}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
const at = (instancePath: string): string => (instancePath === "" ? ROOT : instancePath);

/** ajv errors as `<pointer>: <message>`, pointing at the offending field rather than its parent. */
export function ajvProblems(errors: readonly ErrorObject[]): string[] {
  const lines = collapseAnyOf(errors).map(describe);
  return [...new Set(lines)];
}

function describe(error: ErrorObject): string {
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case "required":
      return `${child(error.instancePath, String(params.missingProperty))}: is required but missing`;
    case "additionalProperties":
      return `${child(error.instancePath, String(params.additionalProperty))}: is not a field of this schema (misspelt or from another version?)`;
    case "enum":
      return `${at(error.instancePath)}: must be one of ${formatList(params.allowedValues)}`;
    case "const":
      return `${at(error.instancePath)}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${at(error.instancePath)}: ${error.message ?? error.keyword}`;
  }
}

function formatList(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => JSON.stringify(v)).join(", ") : String(values);
}

/**
 * zod's nullable fields become `anyOf: [X, null]`, and ajv then reports every branch ("must be
 * object", "must be null", "must match a schema in anyOf"). Keep what helps: the errors from inside a
 * branch the value did reach (it had the right type), or else one "must be object or null".
 */
function collapseAnyOf(errors: readonly ErrorObject[]): ErrorObject[] {
  let result = [...errors];
  const anyOfs = errors
    .filter((e) => e.keyword === "anyOf")
    .sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const anyOf of anyOfs) {
    const prefix = `${anyOf.schemaPath}/`;
    const inside = result.filter((e) => e.schemaPath.startsWith(prefix));
    const deeper = inside.filter((e) => e.instancePath !== anyOf.instancePath || e.keyword !== "type");
    const replacement: ErrorObject[] =
      deeper.length > 0
        ? deeper
        : [{ ...anyOf, keyword: "type", message: `must be ${typesOf(inside).join(" or ")}` }];
    const index = result.indexOf(anyOf);
    result = result.filter((e) => e !== anyOf && !inside.includes(e));
    result.splice(Math.min(index, result.length), 0, ...replacement);
  }
  return result;
}

function typesOf(errors: readonly ErrorObject[]): string[] {
  const types = errors.map((e) => {
    const params: Record<string, unknown> = e.params;
    return String(params.type);
  });
  return [...new Set(types)];
}

/** zod issues in the same `<pointer>: <message>` shape as ajv's. */
export function zodProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${jsonPointer(issue.path)}: ${issue.message}`);
}
