import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../util/paths.js";
import {
  loadPrecompiledValidator,
  newAjv,
  precompiledValidatorFile,
  writePrecompiledValidators,
} from "./precompiled-validators.js";
import { ajvProblems } from "./problems.js";

/**
 * Build-time validators (issue 11): the build writes one per schema, each must judge exactly as a
 * validator compiled at run time does, and one whose schema changed after the build is never used.
 */
// Under node_modules/.cache: the generated code requires ajv's runtime helpers, resolved from where
// the file is (dist/schemas/ in a build), which a folder under /tmp could not.
const cache = join(PACKAGE_ROOT, "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, "devflow-precompiled-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
cpSync(join(PACKAGE_ROOT, "schemas"), dir, { recursive: true });
const schemaFiles = readdirSync(dir)
  .filter((n) => n.endsWith(".schema.json"))
  .map((n) => join(dir, n));

/** Values every schema must judge: nothing valid for most, but each exercises the error paths. */
const PROBES: unknown[] = [
  {},
  null,
  [],
  "x",
  { schema_version: 1 },
  { schema_version: "1", task_id: 3, extra: true },
  { type: "event", kind: "node", node: "verify", phase: "start", extra: [1, 2] },
];

describe("build-time ajv validators", () => {
  it("are written beside every schema and judge like a validator compiled at run time", async () => {
    const written = await writePrecompiledValidators(dir);
    expect(written.sort()).toEqual(schemaFiles.map(precompiledValidatorFile).sort());
    const ajv = newAjv();
    for (const schemaFile of schemaFiles) {
      const text = readFileSync(schemaFile, "utf8");
      const built = loadPrecompiledValidator(schemaFile, text);
      expect(built, schemaFile).not.toBeNull();
      const runtime = ajv.compile(JSON.parse(text));
      for (const value of PROBES) {
        const a = built?.(value) ?? null;
        const b = runtime(value);
        expect({ schemaFile, value, ok: a }).toEqual({ schemaFile, value, ok: b });
        expect(ajvProblems(built?.errors ?? [])).toEqual(ajvProblems(runtime.errors ?? []));
      }
    }
  });

  it("is never used once its schema changed after the build (the stamp no longer matches)", async () => {
    await writePrecompiledValidators(dir);
    const schemaFile = join(dir, "ticket.schema.json");
    const text = readFileSync(schemaFile, "utf8");
    expect(loadPrecompiledValidator(schemaFile, text)).not.toBeNull();
    const changed = text.replace('"type":"object"', '"type":"array"');
    expect(loadPrecompiledValidator(schemaFile, changed === text ? `${text} ` : changed)).toBeNull();
  });

  it("a build rewrites only the validators whose schema changed, and the loader uses exactly the file it finds", async () => {
    // A schema of its own: node caches a module once required, and the first test loaded the others.
    const schemaFile = join(dir, "stand_in.schema.json");
    cpSync(join(dir, "lesson.schema.json"), schemaFile);
    await writePrecompiledValidators(dir);
    const text = readFileSync(schemaFile, "utf8");
    const file = precompiledValidatorFile(schemaFile);
    // A stand-in with the right stamp is what gets loaded: the loader trusts the stamp, nothing else.
    const stamp = readFileSync(file, "utf8").split("\n").at(-2);
    writeFileSync(file, `module.exports = () => "stand-in";\n${stamp}\n`);
    expect(loadPrecompiledValidator(schemaFile, text)?.({})).toBe("stand-in");
    // Unchanged schema: the build keeps the file as it is.
    await writePrecompiledValidators(dir);
    expect(readFileSync(file, "utf8")).toContain("stand-in");
  });

  it("the build's own validators are used: a built devflow validates every artifact without loading ajv's compiler", () => {
    // dist/ as `npm test` builds it first (the CLI tests run it too).
    const validate = join(PACKAGE_ROOT, "dist", "src", "artifacts", "validate.js");
    const script = `
      const { ajvCheck } = await import(${JSON.stringify(validate)});
      const { ALL_SCHEMAS } = await import(${JSON.stringify(join(PACKAGE_ROOT, "dist", "src", "artifacts", "schemas", "index.js"))});
      const problems = Object.keys(ALL_SCHEMAS).map((name) => ajvCheck(name, {}).length);
      const { createRequire } = await import("node:module");
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((m) => ["/ajv/dist/2020.js", "/ajv/dist/core.js", "/ajv/dist/compile/"].some((p) => m.includes(p)));
      console.log(JSON.stringify({ schemas: problems.length, loaded }));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { schemas: number; loaded: string[] };
    expect(out.schemas).toBeGreaterThanOrEqual(15);
    expect(out.loaded).toEqual([]);
  });

  it("no validator file (running from src/): null, compiled at first use", () => {
    const schemaFile = join(dir, "nothing-here.schema.json");
    expect(loadPrecompiledValidator(schemaFile, "{}")).toBeNull();
  });
});
