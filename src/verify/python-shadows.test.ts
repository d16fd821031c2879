/**
 * Review of stop 39: a new root `textwrap.py`, `pdb.py` or `pytest.py` ran in place of the module
 * Python loads from outside the checkout and replaced the function under test (three completions on
 * real pytest). Mutation: `pythonShadowFindings` returning [] → the lane cases of
 * test/adversarial/review/pytest-implicit-loads-attack39.test.ts complete, and the first test here is red.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { folderWith } from "../../test/support/test-repo.js";
import {
  helperInterpreter,
  modulesOutside,
  pythonShadowFindings,
  seamInterpreter,
  stdlibModules,
  topLevelModuleName,
} from "./python-shadows.js";

/** The snapshot's checkout holding `files`, removed when the test ends. */
const checkout = (files: Record<string, string>): string => folderWith(files, "devflow-py-shadows-");

const nothingOnBase = async () => new Set<string>();

describe("pythonShadowFindings", () => {
  it("names a new root module named like the standard library's or pytest's own", async () => {
    const files = ["textwrap.py", "pytest.py", "json/__init__.py", "slug_utils.py", "tests/pdb.py"];
    const root = checkout(Object.fromEntries(files.map((f) => [f, ""])));
    const found = await pythonShadowFindings({
      checkout: root,
      changedFiles: files,
      seamCommand: "python3 -m pytest tests/test_slug.py",
      onBase: nothingOnBase,
    });
    expect(found.map((f) => f.split(" ")[0])).toEqual([
      "textwrap.py",
      "pytest.py",
      "json/__init__.py",
      "tests/pdb.py",
    ]);
    expect(found[0]).toContain(
      "a new module named `textwrap` like one Python loads from outside the checkout",
    );
  });

  it("leaves a package's submodules, modules base had, deleted files and other files alone", async () => {
    const root = checkout({ "pkg/__init__.py": "", "pkg/json.py": "", "typing.py": "", "README.md": "" });
    const found = await pythonShadowFindings({
      checkout: root,
      changedFiles: ["pkg/json.py", "typing.py", "enum.py", "README.md"],
      seamCommand: "pytest",
      onBase: async (paths) => new Set(paths.filter((p) => p === "typing.py")),
    });
    expect(found).toEqual([]);
  });

  it("asks the seam's interpreter for the names, once", async () => {
    const names = await modulesOutside("python3");
    for (const name of ["textwrap", "pdb", "json", "pytest"]) expect(names.has(name), name).toBe(true);
    expect(names.has("slug")).toBe(false);
    expect(await modulesOutside("python3")).toBe(names);
    expect((await modulesOutside("/nonexistent/python3")).size).toBe(0);
  });
});

describe("topLevelModuleName", () => {
  it("takes N.py, N/__init__.py and extensions in the root or a folder that is no package", () => {
    const root = checkout({
      "a.py": "",
      "b/__init__.py": "",
      "c.cpython-311-x86_64-linux-gnu.so": "",
      "src/d.py": "",
      "pkg/__init__.py": "",
      "pkg/e.py": "",
      "my-mod.py": "",
    });
    expect(topLevelModuleName(root, "a.py")).toBe("a");
    expect(topLevelModuleName(root, "b/__init__.py")).toBe("b");
    expect(topLevelModuleName(root, "c.cpython-311-x86_64-linux-gnu.so")).toBe("c");
    expect(topLevelModuleName(root, "src/d.py")).toBe("d");
    expect(topLevelModuleName(root, "pkg/e.py")).toBeNull();
    expect(topLevelModuleName(root, "my-mod.py")).toBeNull();
    expect(topLevelModuleName(root, "gone.py")).toBeNull();
    // Review of stop 39: a link to a folder holding a package is that package.
    mkdirSync(join(root, "shim"));
    writeFileSync(join(root, "shim", "__init__.py"), "");
    symlinkSync("shim", join(root, "textwrap"));
    symlinkSync("pkg", join(root, "pkglink"));
    expect(topLevelModuleName(root, "textwrap")).toBe("textwrap");
    expect(topLevelModuleName(root, "src")).toBeNull();
  });
});

describe("seamInterpreter", () => {
  it("reads the python of the command (from the checkout when relative), or of the pytest script's #! line, else python3", () => {
    const bin = checkout({
      pytest: "#!/opt/py/bin/python3.12\n",
      "py.test": "#!/usr/bin/env python3.11 -u\n",
      ".venv/bin/python": "",
      ".venv/bin/pytest": "#!/work/repo/.venv/bin/python3\n",
    });
    for (const f of ["pytest", "py.test", ".venv/bin/python", ".venv/bin/pytest"])
      chmodSync(join(bin, f), 0o755);
    expect(seamInterpreter(`${bin}/.venv/bin/python -m pytest`, bin)).toBe(`${bin}/.venv/bin/python`);
    expect(seamInterpreter("/nonexistent/bin/python3 -m pytest", bin)).toBe("python3");
    expect(seamInterpreter("python3.12 -m pytest", bin)).toBe("python3.12");
    expect(seamInterpreter("pytest -q tests", bin)).toBe("/opt/py/bin/python3.12");
    expect(seamInterpreter("py.test", bin)).toBe("python3.11");
    // Review of stop 39: a venv's interpreter or script, named relative to the checkout.
    expect(seamInterpreter(".venv/bin/python -m pytest", "", bin)).toBe(`${bin}/.venv/bin/python`);
    expect(seamInterpreter(".venv/bin/pytest", "", bin)).toBe("/work/repo/.venv/bin/python3");
    expect(seamInterpreter(".venv/bin/python -m pytest", bin)).toBe("python3");
    expect(seamInterpreter("npx vitest run", bin)).toBe("python3");
  });
});

describe("helperInterpreter", () => {
  it("is the seam's interpreter unless the attempt could have written it or the script naming it; else python3 out of reach, else none", () => {
    const env = checkout({ "bin/python": "", "tools/pytest": "", "alt/pytest": "" });
    const sys = checkout({ python3: "" });
    const coder = checkout({ "tools/python3": "" });
    const co = checkout({ ".venv/bin/python": "", ".venv/bin/pytest": "", "evil/python3": "" });
    symlinkSync(join(env, "bin"), join(co, "linked"));
    writeFileSync(join(env, "tools/pytest"), `#!${co}/evil/python3\n`);
    writeFileSync(join(env, "alt/pytest"), `#!${coder}/tools/python3\n`);
    writeFileSync(join(co, ".venv/bin/pytest"), `#!${env}/bin/python\n`);
    const executables = [
      join(env, "bin/python"),
      join(env, "tools/pytest"),
      join(env, "alt/pytest"),
      join(sys, "python3"),
      join(coder, "tools/python3"),
      join(co, ".venv/bin/python"),
      join(co, ".venv/bin/pytest"),
      join(co, "evil/python3"),
    ];
    for (const f of executables) chmodSync(f, 0o755);
    const reach = { checkout: co, attemptDirs: [coder], path: sys, writable: [] };
    const fallback = join(sys, "python3");
    // A committed interpreter, named relative or absolute: python3 from PATH answers instead.
    expect(helperInterpreter(".venv/bin/python -m pytest", reach)).toBe(fallback);
    expect(helperInterpreter(`${co}/.venv/bin/python -m pytest`, reach)).toBe(fallback);
    // A committed pytest script, whatever its #! names (third review, stop 40).
    expect(helperInterpreter(".venv/bin/pytest -q", reach)).toBe(fallback);
    // A pytest script out of reach whose #! names a file of the checkout, or of the coder's checkout.
    expect(helperInterpreter("pytest -q", { ...reach, path: `${join(env, "tools")}:${sys}` })).toBe(fallback);
    expect(helperInterpreter(`${env}/alt/pytest`, reach)).toBe(fallback);
    expect(helperInterpreter(`${env}/alt/pytest`, { ...reach, attemptDirs: [] })).toBe(
      `${coder}/tools/python3`,
    );
    // A link in the checkout leading out is judged as named (a venv's bin/python is such a link,
    // and started by that path Python runs the venv's site-packages: second review, stop 40).
    expect(helperInterpreter("linked/python -m pytest", reach)).toBe(fallback);
    // An interpreter out of reach is the seam's, unless it is in a directory confined runs may write.
    expect(helperInterpreter(`${env}/bin/python -m pytest`, reach)).toBe(`${env}/bin/python`);
    expect(helperInterpreter(`${env}/bin/python -m pytest`, { ...reach, writable: [env] })).toBe(fallback);
    // No python3 out of reach: none answers.
    expect(helperInterpreter(".venv/bin/python -m pytest", { ...reach, path: join(co, "evil") })).toBeNull();
  });
});

describe("stdlibModules", () => {
  it("holds the standard library's and built-in names, not installed packages", async () => {
    const std = await stdlibModules("python3");
    expect(std.has("copy") && std.has("sys") && std.has("pdb")).toBe(true);
    expect(std.has("pytest")).toBe(false);
    expect((await modulesOutside("python3")).has("pytest")).toBe(true);
  });
});
