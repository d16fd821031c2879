import { join } from "node:path";
import { PACKAGE_ROOT } from "../util/paths.js";
import type { SchemaName } from "./schemas/index.js";

/** Schemas of files users write (config, tickets), exported beside ALL_SCHEMAS. */
type ExportedInputName = "config_file" | "ticket" | "daemon_config";

/** Generated JSON Schemas live at the package root so non-TypeScript tools can use them too. */
export const SCHEMAS_DIR = join(PACKAGE_ROOT, "schemas");

export const schemaFileName = (name: SchemaName | ExportedInputName): string => `${name}.schema.json`;

export const schemaFilePath = (name: SchemaName): string => join(SCHEMAS_DIR, schemaFileName(name));

/** A URN rather than a URL: the schemas are not published anywhere, and a fake URL would invite fetching. */
export const schemaId = (name: SchemaName | ExportedInputName): string => `urn:devflow:schema:${name}`;
