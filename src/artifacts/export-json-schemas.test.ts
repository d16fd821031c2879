import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderJsonSchemas, writeJsonSchemas } from "./export-json-schemas.js";
import { SCHEMAS_DIR } from "./schema-files.js";
import { ALL_SCHEMAS } from "./schemas/index.js";

const OUT_OF_SYNC =
  "schemas/ is out of sync with src/artifacts/schemas: run `npm run schemas` and commit the result";

describe("schemas/ (generated JSON Schemas)", () => {
  it("matches what the zod schemas render, file for file", () => {
    const rendered = renderJsonSchemas();
    const onDisk = readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith(".schema.json"));
    expect(onDisk.sort(), OUT_OF_SYNC).toEqual(Object.keys(rendered).sort());
    for (const [file, content] of Object.entries(rendered)) {
      expect(readFileSync(join(SCHEMAS_DIR, file), "utf8"), `${file}: ${OUT_OF_SYNC}`).toBe(content);
    }
  });

  it("renders one 2-space, newline-terminated draft 2020-12 document per schema with a stable id", () => {
    const rendered = renderJsonSchemas();
    // + the input schemas: config_file (ADR 0047), ticket and daemon_config (ADR 0051)
    expect(Object.keys(rendered)).toHaveLength(Object.keys(ALL_SCHEMAS).length + 3);
    const text = rendered["task_artifact.schema.json"] ?? "";
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")[1]).toBe('  "$schema": "https://json-schema.org/draft/2020-12/schema",');
    expect(JSON.parse(text)).toMatchObject({
      $id: "urn:devflow:schema:task_artifact",
      title: "task_artifact",
    });
    expect(renderJsonSchemas()).toEqual(rendered);
  });
});

describe("writeJsonSchemas", () => {
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("writes every schema and removes generated files whose schema is gone, leaving other files alone", () => {
    dir = mkdtempSync(join(tmpdir(), "devflow-schemas-"));
    writeFileSync(join(dir, "renamed_away.schema.json"), "{}\n");
    writeFileSync(join(dir, "README.md"), "hand-written\n");
    writeJsonSchemas(dir);
    const expected = Object.keys(renderJsonSchemas());
    expect(readdirSync(dir).sort()).toEqual([...expected, "README.md"].sort());
    expect(readFileSync(join(dir, "lesson.schema.json"), "utf8")).toBe(
      renderJsonSchemas()["lesson.schema.json"],
    );
  });
});
