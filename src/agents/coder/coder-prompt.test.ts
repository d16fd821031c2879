import { describe, expect, it } from "vitest";
import { exampleArtifacts } from "../../../test/support/artifact-examples.js";
import { buildCoderPrompt, seamFilesForPrompt } from "./coder-prompt.js";

describe("the seam's files in the coder's prompt", () => {
  it("names each file, and a folder holding more than five of them once with the count", () => {
    const cases = Array.from({ length: 300 }, (_, i) => `test/cases/case-${String(i).padStart(3, "0")}.json`);
    expect(seamFilesForPrompt(["test/a.test.js", ...cases, "test/fixtures/x.json"])).toBe(
      "`test/a.test.js`, `test/cases/` (300 files in it), `test/fixtures/x.json`",
    );
    expect(seamFilesForPrompt(["a.test.js", "b.test.js", "c.test.js", "d.test.js", "e.test.js"])).toBe(
      "`a.test.js`, `b.test.js`, `c.test.js`, `d.test.js`, `e.test.js`",
    );
    expect(seamFilesForPrompt(["1.t", "2.t", "3.t", "4.t", "5.t", "6.t"])).toBe("`./` (6 files in it)");
    expect(seamFilesForPrompt([])).toBe("(none)");
  });

  // Regression (stop 28): a seam reading a folder of cases protects every file in it, and the
  // prompt listed each: 2,000 paths in every attempt's prompt. Fix: the folder is named once.
  it("keeps the prompt short when the seam protects a large folder", () => {
    const { task_artifact: task, observation_artifact: observation } = exampleArtifacts();
    const seam = observation.failing_seam;
    if (!seam) throw new Error("the example observation has a seam");
    const files = Array.from({ length: 2_000 }, (_, i) => `test/corpus/${i}.txt`);
    const few = buildCoderPrompt({ task, observation, lessons: [], steps: null });
    const many = buildCoderPrompt({
      task,
      observation: { ...observation, failing_seam: { ...seam, files: [...seam.files, ...files] } },
      lessons: [],
      steps: null,
    });
    expect(many).toContain("`test/corpus/` (2000 files in it)");
    expect(many.length - few.length).toBeLessThan(100);
  });
});
