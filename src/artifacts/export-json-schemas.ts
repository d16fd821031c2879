import { mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { SCHEMAS_DIR, schemaFileName, schemaId } from "./schema-files.js";
import { ConfigFile } from "./schemas/config-file.js";
import { ALL_SCHEMAS, type SchemaName } from "./schemas/index.js";
import { DaemonConfig, TicketFrontmatter } from "./schemas/ticket.js";

/** Schemas of files users write (not artifacts devflow writes), exported next to ALL_SCHEMAS. */
const INPUT_SCHEMAS = {
  config_file: ConfigFile,
  ticket: TicketFrontmatter,
  daemon_config: DaemonConfig,
} as const;
export type InputSchemaName = keyof typeof INPUT_SCHEMAS;
type ExportedName = SchemaName | InputSchemaName;

/**
 * Draft 2020-12 because it is zod's default target and ajv's `Ajv2020` compiles zod's output in
 * strict mode without any keyword tweaks. `io: "output"` describes what devflow writes: every
 * object is closed (`additionalProperties: false`), so a misspelt field on disk is caught.
 */
export function renderJsonSchema(name: ExportedName): string {
  const schema =
    name in INPUT_SCHEMAS
      ? INPUT_SCHEMAS[name as keyof typeof INPUT_SCHEMAS]
      : ALL_SCHEMAS[name as SchemaName];
  const generated = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" });
  const { $schema, ...body } = generated;
  // Identity keys first, then zod's own emission order (schema declaration order): deterministic, so
  // the checked-in files only change when a schema does.
  const document = {
    $schema,
    $id: schemaId(name),
    title: name,
    $comment: "Generated from src/artifacts/schemas by `npm run schemas`. Do not edit by hand.",
    ...body,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** File name under schemas/ → file content, for every schema in ALL_SCHEMAS. */
export function renderJsonSchemas(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of [...Object.keys(ALL_SCHEMAS), ...Object.keys(INPUT_SCHEMAS)] as ExportedName[]) {
    files[schemaFileName(name)] = renderJsonSchema(name);
  }
  return files;
}

/** Writes every schema and removes generated files whose schema no longer exists. Returns the files written. */
export function writeJsonSchemas(dir: string = SCHEMAS_DIR): string[] {
  mkdirSync(dir, { recursive: true });
  const files = renderJsonSchemas();
  for (const existing of readdirSync(dir)) {
    if (existing.endsWith(".schema.json") && !(existing in files)) rmSync(join(dir, existing));
  }
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return Object.keys(files);
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const written = writeJsonSchemas();
  const where = relative(process.cwd(), SCHEMAS_DIR) || ".";
  console.log(`wrote ${written.length} JSON Schemas to ${where}/: ${written.join(", ")}`);
}
