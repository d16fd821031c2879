import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/index.js";
import { applyEdit, MUTATIONS } from "./mutations.js";

/**
 * The cheap half of `npm run eval:mutants`: every mutation still applies to today's source (its
 * anchor occurs exactly once), so a rename shows up in the unit tests, not only in the slow check;
 * and an anchor that is gone is reported as a problem, never skipped.
 */
describe("the mutations of the mutation check", () => {
  it("are the three lies of issue 9 class 10", () => {
    expect(MUTATIONS.map((m) => m.name)).toEqual([
      "seam-verifier-always-green",
      "red-on-base-always-confirms",
      "critic-always-met",
    ]);
  });

  it.each(MUTATIONS.flatMap((m) => m.edits.map((e) => [m.name, e.file, e] as const)))(
    "%s applies to %s (its anchor occurs exactly once)",
    (_name, _file, edit) => {
      const applied = applyEdit(readFileSync(join(PACKAGE_ROOT, edit.file), "utf8"), edit);
      expect(applied).not.toHaveProperty("problem");
    },
  );

  it("an anchor that is gone is a problem naming the file, not a silent pass", () => {
    const edit = {
      file: "src/x.ts",
      anchor: "export async function gone(): Promise<void> {",
      replacement: "",
    };
    expect(applyEdit("const other = 1;\n", edit)).toEqual({
      problem: "anchor not found in src/x.ts: export async function gone(): Promise<void> {",
    });
    expect(applyEdit(`${edit.anchor}\n${edit.anchor}\n`, edit)).toHaveProperty("problem");
  });
});
