import { describe, expect, it } from "vitest";
import { pytestSelections, selectionsKeep } from "./pytest-selection.js";

describe("pytestSelections: pytest's -k and -m options", () => {
  it.each([
    ['-q -m "not slow" tests', [{ flag: "-m", expression: "not slow" }]],
    ["-k 'a and not b'", [{ flag: "-k", expression: "a and not b" }]],
    [
      "-kspaces --keyword=x -m=fast",
      [
        { flag: "-k", expression: "spaces" },
        { flag: "-k", expression: "x" },
        { flag: "-m", expression: "fast" },
      ],
    ],
    ["--keyword 'not net'", [{ flag: "-k", expression: "not net" }]],
    // Review (stop 31): short flags combine.
    ["-qk spaces", [{ flag: "-k", expression: "spaces" }]],
    ["-vvm 'not slow'", [{ flag: "-m", expression: "not slow" }]],
    ["-q -p no:cacheprovider", []],
  ] as const)("%s", (args, expected) => {
    expect(pytestSelections(args)).toEqual(expected);
  });
});

describe("selectionsKeep: whether the selection keeps devflow's canary", () => {
  const CANARY = ["test_devflow_seam_canary_ab12", "test_slug_devflow_canary_ab12.py", "tests"];
  const keeps = (flag: "-k" | "-m", expression: string) => selectionsKeep([{ flag, expression }], CANARY);
  it.each([
    ["-m", "not slow", true],
    ["-m", "not (slow or integration)", true],
    ["-m", "slow", false],
    ["-m", "fast or not slow", true],
    ["-m", 'slow(reason="x")', false],
    ["-m", "not slow and not serial", true],
    ["-k", "not network", true],
    ["-k", "spaces", false],
    ["-k", "canary", true],
    ["-k", "TESTS", true],
    ["-k", "not tests", false],
    ["-k", "not devflow", false],
    ["-k", "spaces or canary", true],
    // Review (stop 31): a keyword before a parenthesis is the keyword (pytest placed-and-dropped).
    ["-m", "not(not(slow))", false],
    ["-m", "not(slow)", true],
    ["-k", "not(canary)", false],
  ] as const)("%s %s → %s", (flag, expression, expected) => {
    expect(keeps(flag, expression)).toBe(expected);
  });
  it("takes a name devflow cannot see (a folder above the repository) as matching nothing", () => {
    expect(keeps("-k", "repo")).toBe(false);
    expect(keeps("-k", "not repo")).toBe(true);
  });
  it.each(["not", "a and", "(a", "a b", "or"])("does not guess on %j", (expression) => {
    expect(keeps("-k", expression)).toBeNull();
  });
});
