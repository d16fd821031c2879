import { describe, expect, it } from "vitest";
import { exampleArtifacts } from "../../../test/support/artifact-examples.js";
import { buildCoderPrompt, seamFilesForPrompt } from "./coder-prompt.js";

describe("the seam's files in the coder's prompt", () => {
  it("names each file, and a folder holding more than ten of them once with the count", () => {
    const cases = Array.from({ length: 300 }, (_, i) => `test/cases/case-${String(i).padStart(3, "0")}.json`);
    expect(seamFilesForPrompt(["test/a.test.js", ...cases, "test/fixtures/x.json"])).toBe(
      "`test/a.test.js`, `test/cases/` (300 files in it), `test/fixtures/x.json`",
    );
    const ten = Array.from({ length: 10 }, (_, i) => `t${i}.test.js`);
    expect(seamFilesForPrompt(ten)).toBe(ten.map((f) => `\`${f}\``).join(", "));
    expect(seamFilesForPrompt([...ten, "x.t"])).toBe("`./` (11 files in it)");
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

  // Regression (stop 29): pytest's conftest.py and the like are pinned as absent paths (creating
  // one is tampering); listed among "files to keep" they read as files that exist, and ten of them
  // collapsed the test folder, hiding the seam's test name. Fix: named apart, as paths not to create.
  it("names the paths the seam pins as absent apart from its files", () => {
    const { task_artifact: task, observation_artifact: observation } = exampleArtifacts();
    const seam = observation.failing_seam;
    if (!seam) throw new Error("the example observation has a seam");
    const absent = ["tests/conftest.py", "tests/__init__.py", "conftest.py"];
    const prompt = buildCoderPrompt({
      task,
      observation: { ...observation, failing_seam: { ...seam, files: [...seam.files, ...absent] } },
      lessons: [],
      steps: null,
      absentSeamPaths: absent,
    });
    const keep = prompt.split("\n").find((l) => l.startsWith("Do not edit or delete")) ?? "";
    const create = prompt.split("\n").find((l) => l.startsWith("Do not create")) ?? "";
    for (const f of seam.files) expect(keep).toContain(`\`${f}\``);
    for (const f of absent) {
      expect(keep).not.toContain(f);
      expect(create).toContain(`\`${f}\``);
    }
    expect(buildCoderPrompt({ task, observation, lessons: [], steps: null })).not.toContain("Do not create");
  });
});
