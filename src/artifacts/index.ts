export * from "./errors.js";
export { renderJsonSchema, renderJsonSchemas, writeJsonSchemas } from "./export-json-schemas.js";
export { JSONL_FILES, type JsonlFile } from "./jsonl.js";
export { jsonPointer } from "./problems.js";
export { SCHEMAS_DIR, schemaFilePath, schemaId } from "./schema-files.js";
export * from "./schemas/index.js";
export {
  ArtifactStore,
  type RevisionedInput,
  type WriteOptions,
} from "./store.js";
export { historyFileName } from "./task-paths.js";
export {
  ajvCheck,
  type CheckTarget,
  isSchemaName,
  parseArtifact,
  parseWithZod,
  type SchemaValue,
  validateArtifact,
  zodCheck,
} from "./validate.js";
