import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPlaygroundCommand, PLAYGROUND_ENTRY } from "./playground-entry.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function moduleFile(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-playground-entry-"));
  dirs.push(dir);
  const path = join(dir, "command.ts");
  writeFileSync(path, source);
  return path;
}

describe("loadPlaygroundCommand", () => {
  it("loads the package's playground/command.ts at run time", async () => {
    expect(PLAYGROUND_ENTRY).toMatch(/playground[/\\]command\.ts$/);
    expect(await loadPlaygroundCommand()).toBeTypeOf("function");
  });

  it("refuses a module that does not export runPlaygroundCommand, naming the file", async () => {
    const path = moduleFile("export const somethingElse = 1;\n");
    await expect(loadPlaygroundCommand(path)).rejects.toThrow(
      `${path} does not export a runPlaygroundCommand function`,
    );
  });
});
