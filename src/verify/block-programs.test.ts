import { describe, expect, it } from "vitest";
import { blockPrograms, simpleCommands } from "./block-programs.js";

describe("blockPrograms: the files a Verification block runs (ADR 0059)", () => {
  it("names an interpreter's script, a path command word and what `source` reads", () => {
    expect(blockPrograms("node scripts/check.mjs")).toEqual(["scripts/check.mjs"]);
    expect(blockPrograms("bash -x ./scripts/check.sh --fast")).toEqual(["./scripts/check.sh"]);
    expect(blockPrograms("./scripts/check.sh arg")).toEqual(["./scripts/check.sh"]);
    expect(blockPrograms("source scripts/env.sh\npython3 tools/lint.py src")).toEqual([
      "scripts/env.sh",
      "tools/lint.py",
      "src",
    ]);
  });

  it("reads every command of a block: lists, pipes, subshells, env prefixes and wrappers", () => {
    expect(
      blockPrograms("set -e; X=1 node a.mjs && (cd x || true) | env Y=2 timeout 5 bash b.sh # node c.mjs"),
    ).toEqual(["a.mjs", "b.sh"]);
  });

  it("takes option values that name files and package.json for a package manager", () => {
    expect(blockPrograms("node --require=./setup.cjs --test test/x.test.js")).toEqual([
      "test/x.test.js",
      "./setup.cjs",
    ]);
    expect(blockPrograms("npm test")).toEqual(["package.json"]);
    expect(blockPrograms("npm run check && yarn lint")).toEqual(["package.json"]);
  });

  it("leaves inline code alone: the module it imports is the code under check", () => {
    expect(blockPrograms(`node --input-type=module -e 'await import("./src/csv-import.js")'`)).toEqual([]);
    expect(blockPrograms("grep -q x src/a.js && test -f b")).toEqual([]);
  });

  it("splits on quotes like the shell (a quoted word keeps its spaces and separators)", () => {
    expect(simpleCommands(`node -e 'a; b | c' x.js\necho "q r"s \\\nnext`)).toEqual([
      ["node", "-e", "a; b | c", "x.js"],
      ["echo", "q rs", "next"],
    ]);
  });
});
