import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectTestCommand } from "./test-command.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-testcmd-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const put = async (file: string, text: string) => {
  await mkdir(join(dir, file, ".."), { recursive: true });
  await writeFile(join(dir, file), text);
};

describe("detectTestCommand", () => {
  it("finds nothing in an empty project", () => {
    expect(detectTestCommand(dir)).toBeNull();
  });

  it("uses package.json scripts.test through npm", async () => {
    await put("package.json", JSON.stringify({ scripts: { test: "node --test" } }));
    expect(detectTestCommand(dir)).toEqual({
      command: "npm test --silent",
      source: "package.json scripts.test",
    });
  });

  it("skips npm's default 'no test specified' script", async () => {
    await put(
      "package.json",
      JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
    );
    expect(detectTestCommand(dir)).toBeNull();
  });

  it("falls through a package.json without scripts or with invalid JSON", async () => {
    await put("package.json", "{ not json");
    await put("Makefile", "build:\n\tcc x.c\n\ntest: build\n\t./run-tests\n");
    expect(detectTestCommand(dir)).toEqual({ command: "make test", source: 'Makefile target "test"' });
  });

  it("does not mistake a Makefile variable named test for a target", async () => {
    await put("Makefile", "test := 1\nall:\n\techo\n");
    expect(detectTestCommand(dir)).toBeNull();
  });

  it.each([
    ["pytest.ini", "[pytest]\n"],
    ["pyproject.toml", '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'],
    ["setup.cfg", "[tool:pytest]\n"],
    ["tox.ini", "[pytest]\naddopts = -q\n"],
    ["tests/test_calc.py", "def test_x(): pass\n"],
  ])("uses pytest when %s says so", async (file, text) => {
    await put(file, text);
    expect(detectTestCommand(dir)?.command).toBe("python3 -m pytest -q -rA");
  });

  it("uses go test for a go module and cargo test for a crate", async () => {
    await put("go.mod", "module example.com/x\n");
    expect(detectTestCommand(dir)).toEqual({ command: "go test ./... -v", source: "go.mod" });
    await rm(join(dir, "go.mod"));
    await put("Cargo.toml", '[package]\nname = "x"\n');
    expect(detectTestCommand(dir)).toEqual({ command: "cargo test", source: "Cargo.toml" });
  });

  it("prefers package.json over other markers", async () => {
    await put("package.json", JSON.stringify({ scripts: { test: "vitest run" } }));
    await put("go.mod", "module example.com/x\n");
    expect(detectTestCommand(dir)?.source).toBe("package.json scripts.test");
  });
});
