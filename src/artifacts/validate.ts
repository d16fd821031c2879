import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { z } from "zod";
import type { DevflowError } from "../errors/index.js";
import { PACKAGE_ROOT } from "../util/paths.js";
import { artifactValidationError, schemaFileError } from "./errors.js";
import { loadPrecompiledValidator, newAjv } from "./precompiled-validators.js";
import { ajvProblems, zodProblems } from "./problems.js";
import { SCHEMAS_DIR, schemaFilePath } from "./schema-files.js";
import { ALL_SCHEMAS, type SchemaName } from "./schemas/index.js";

export type SchemaValue<N extends SchemaName> = z.output<(typeof ALL_SCHEMAS)[N]>;

/** Where a value being checked lives, so an error can say which file to fix (read) or that nothing was written (write). */
export interface CheckTarget {
  file: string | null;
  action: "read" | "write" | "check";
  /** 1-based line, for a JSONL line. */
  line?: number;
}
const CHECK: CheckTarget = { file: null, action: "check" };

export function isSchemaName(name: string): name is SchemaName {
  return Object.hasOwn(ALL_SCHEMAS, name);
}

/** Made at the first schema that has no build-time validator (precompiled-validators.ts). */
let ajv: ReturnType<typeof newAjv> | null = null;
function compileAtRunTime(schema: object): ValidateFunction {
  ajv ??= newAjv();
  return ajv.compile(schema);
}
const compiled = new Map<SchemaName, ValidateFunction>();

function validatorFor(name: SchemaName): ValidateFunction {
  const hit = compiled.get(name);
  if (hit) return hit;
  const file = schemaFilePath(name);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw schemaFileError(displayPath(file), "is missing");
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw schemaFileError(displayPath(file), `is not valid JSON (${messageOf(error)})`);
  }
  if (typeof schema !== "object" || schema === null)
    throw schemaFileError(displayPath(file), "is not an object");
  const validate = loadPrecompiledValidator(file, text) ?? compileAtRunTime(schema);
  compiled.set(name, validate);
  return validate;
}

/** Problems ajv finds in `value` against schemas/<name>.schema.json, as `<json pointer>: <message>`; empty when valid. */
export function ajvCheck(name: SchemaName, value: unknown): string[] {
  const validate = validatorFor(name);
  return validate(value) ? [] : ajvProblems(validate.errors ?? []);
}

/** Problems zod finds in `value` against ALL_SCHEMAS[name]; empty when valid. */
export function zodCheck(name: SchemaName, value: unknown): string[] {
  const result = ALL_SCHEMAS[name].safeParse(value);
  return result.success ? [] : zodProblems(result.error);
}

/** The on-disk check: validates `value` with ajv against the generated JSON Schema of `name`. */
export function validateArtifact<N extends SchemaName>(
  name: N,
  value: unknown,
  target: CheckTarget = CHECK,
): SchemaValue<N> {
  const problems = ajvCheck(name, value);
  if (problems.length > 0) throw validationError(name, target, problems);
  return value as SchemaValue<N>;
}

/**
 * ajv (the published contract) and then zod (the source of truth, which also yields the typed
 * value). Both must accept: if only zod complains the schemas/ files are out of date.
 */
export function parseArtifact<N extends SchemaName>(
  name: N,
  value: unknown,
  target: CheckTarget = CHECK,
): SchemaValue<N> {
  validateArtifact(name, value, target);
  // TypeScript cannot index ALL_SCHEMAS with a generic N and keep the zod type; zod has checked the value.
  const parsed: unknown = parseWithZod(name, ALL_SCHEMAS[name], value, target);
  return parsed as SchemaValue<N>;
}

/** zod parse with the same error shape as ajv's; `label` names the schema in the message. */
export function parseWithZod<S extends z.ZodType>(
  label: string,
  schema: S,
  value: unknown,
  target: CheckTarget = CHECK,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(label, target, zodProblems(result.error));
  return result.data;
}

function validationError(
  schema: string,
  target: CheckTarget,
  problems: string[],
): DevflowError<"ARTIFACT_INVALID"> {
  const contract = isSchemaName(schema) ? displayPath(schemaFilePath(schema)) : `the ${schema} zod schema`;
  const file = target.file ?? `${schema} value`;
  const where = target.line === undefined ? file : `${file} line ${target.line}`;
  const context = target.action === "write" ? `refusing to write ${where}` : where;
  const consequence = target.action === "write" ? " Nothing was written." : "";
  return artifactValidationError({
    schema,
    file: target.file,
    line: target.line ?? null,
    problems,
    context,
    hint: `It must match ${contract} (generated from src/artifacts/schemas).${consequence}`,
  });
}

function displayPath(file: string): string {
  return file.startsWith(SCHEMAS_DIR) ? relative(PACKAGE_ROOT, file) : file;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
