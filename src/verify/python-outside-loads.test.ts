import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { moduleNames, outsideNamedLoads } from "./python-outside-loads.js";

/** A checkout holding `files` (path → lines), and a trace saying the run opened `opened` of them. */
function judged(files: Record<string, string[]>, added: string[], opened = Object.keys(files)) {
  const dir = mkdtempSync(join(tmpdir(), "devflow-outside-loads-"));
  for (const [path, lines] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), `${lines.join("\n")}\n`);
  }
  return outsideNamedLoads({
    checkoutDir: dir,
    trace: {
      kind: "traced",
      files: [...opened.map((f) => join(dir, f)), "/usr/lib/python3/copy.py"],
      written: [],
    },
    addedModules: added,
    ownFiles: ["tests/test_slug.py"],
    seamCommand: "python3 -m pytest tests/test_slug.py",
  });
}

const TEST = ["from slug import slugify", "def test_it():", "    assert slugify('a b') == 'a-b'"];

describe("moduleNames", () => {
  it("is every dotted tail of the path; a package's __init__ is the package", () => {
    expect(moduleNames("org/python/core.py")).toEqual(["org.python.core", "python.core", "core"]);
    expect(moduleNames("slugkit/__init__.py")).toEqual(["slugkit"]);
    expect(moduleNames("_speed.cpython-311-x86_64-linux-gnu.so")).toEqual(["_speed"]);
  });
});

describe("outsideNamedLoads: a new module the run loaded must be imported by a file the run loaded", () => {
  it("names a new module nothing of the repository imports (loaded by a name outside code tries)", async () => {
    const finding = await judged(
      { "slug.py": ["def slugify(t): return t"], "tests/test_slug.py": TEST, "org.py": [] },
      ["org.py"],
    );
    expect(finding).toMatch(/no file of the repository it loaded imports by name \(org\.py\)/);
  });

  it("accepts modules imported absolutely, from a package, relatively and by a literal import_module", async () => {
    const files = {
      "slug.py": [
        "import importlib",
        "from slugkit import rules",
        "import helpers.text",
        "importlib.import_module('plugins.extra')",
        "def slugify(t): return t",
      ],
      "slugkit/__init__.py": ["from .rules import collapse", "from . import other"],
      "slugkit/rules.py": [],
      "slugkit/other.py": [],
      "helpers/text.py": [],
      "plugins/extra.py": [],
      "tests/test_slug.py": TEST,
    };
    const added = [
      "slugkit/__init__.py",
      "slugkit/rules.py",
      "slugkit/other.py",
      "helpers/text.py",
      "plugins/extra.py",
    ];
    expect(await judged(files, added)).toBeNull();
  });

  it("does not count an import in a file the run did not open, nor a module importing itself, nor a computed name", async () => {
    const files = {
      "slug.py": [
        "import importlib",
        "name = 'org'",
        "importlib.import_module(name)",
        "def slugify(t): return t",
      ],
      "unused.py": ["import org"],
      "org.py": ["import org"],
      "tests/test_slug.py": TEST,
    };
    const opened = ["slug.py", "org.py", "tests/test_slug.py"];
    expect(await judged(files, ["org.py", "unused.py"], opened)).toMatch(/\(org\.py\)/);
  });

  it("two new modules importing each other do not vouch for each other; one the program imports vouches for the next", async () => {
    const base = { "slug.py": ["def slugify(t): return t"], "tests/test_slug.py": TEST };
    const mutual = { ...base, "org.py": ["import orgpeer"], "orgpeer.py": ["import org"] };
    expect(await judged(mutual, ["org.py", "orgpeer.py"])).toMatch(/\(org\.py, orgpeer\.py\)/);
    const chained = {
      ...base,
      "slug.py": ["import a", "def slugify(t): return t"],
      "a.py": ["import b"],
      "b.py": [],
    };
    expect(await judged(chained, ["a.py", "b.py"])).toBeNull();
  });

  it("a new module that is a link counts as opened by the file it leads to", async () => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-outside-loads-"));
    writeFileSync(join(dir, "org_shim.txt"), "");
    symlinkSync("org_shim.txt", join(dir, "org.py"));
    const finding = await outsideNamedLoads({
      checkoutDir: dir,
      trace: { kind: "traced", files: [join(dir, "org_shim.txt")], written: [] },
      addedModules: ["org.py"],
      ownFiles: [],
      seamCommand: "python3 -m pytest",
    });
    expect(finding).toMatch(/\(org\.py\)/);
  });

  it("a changed folder link through which Python was loaded is a module by the link's name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-outside-loads-"));
    mkdirSync(join(dir, "x/slug"), { recursive: true });
    mkdirSync(join(dir, "tests"));
    writeFileSync(join(dir, "x/slug/__init__.py"), "");
    writeFileSync(join(dir, "tests/test_slug.py"), `${TEST.join("\n")}\n`);
    symlinkSync("x/slug", join(dir, "org"));
    symlinkSync("x", join(dir, "data"));
    const input = {
      checkoutDir: dir,
      trace: {
        kind: "traced" as const,
        // The folder itself is opened too (Python lists it).
        files: [join(dir, "x/slug"), join(dir, "x/slug/__init__.py"), join(dir, "tests/test_slug.py")],
        written: [],
      },
      // The test's `from slug import slugify` asks for the tail `slug` of x/slug/__init__.py.
      addedModules: ["x/slug/__init__.py"],
      ownFiles: ["tests/test_slug.py"],
      seamCommand: "python3 -m pytest",
    };
    expect(await outsideNamedLoads(input)).toBeNull();
    expect(await outsideNamedLoads({ ...input, changedLinks: ["org"] })).toMatch(/\(org\)/);
    // A link through which no Python module was opened is not judged here.
    expect(
      await outsideNamedLoads({
        ...input,
        changedLinks: ["data"],
        trace: { ...input.trace, files: [join(dir, "tests/test_slug.py")] },
      }),
    ).toBeNull();
  });

  it("a file opened after the module does not vouch for it (the module read it)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-outside-loads-"));
    const files: Record<string, string> = {
      "slug.py": "def slugify(t): return t\n",
      "tests/test_slug.py": `${TEST.join("\n")}\n`,
      "org.py": "open('docs/jython_compat.py').read()\n",
      "docs/jython_compat.py": "try:\n    import org\nexcept ImportError:\n    pass\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const judge = (order: string[]) =>
      outsideNamedLoads({
        checkoutDir: dir,
        trace: {
          kind: "traced",
          files: order.map((f) => join(dir, f)).sort(),
          written: [],
          firstOpened: order.map((f) => join(dir, f)),
        },
        addedModules: ["org.py"],
        ownFiles: ["tests/test_slug.py"],
        seamCommand: "python3 -m pytest",
      });
    expect(await judge(["tests/test_slug.py", "slug.py", "org.py", "docs/jython_compat.py"])).toMatch(
      /\(org\.py\)/,
    );
    expect(await judge(["tests/test_slug.py", "docs/jython_compat.py", "slug.py", "org.py"])).toBeNull();
  });

  it("an import of a standard-library name asks for the standard library's module, not a new one of that name", async () => {
    const files = {
      "slug.py": ["import pdb", "from src import helper", "def slugify(t): return t"],
      "src/__init__.py": [],
      "src/pdb.py": [],
      "src/helper.py": [],
      "tests/test_slug.py": TEST,
    };
    expect(await judged(files, ["src/pdb.py", "src/helper.py"])).toMatch(/\(src\/pdb\.py\)/);
  });

  it("a file this interpreter cannot parse imports nothing; the others still count", async () => {
    const files = {
      "slug.py": ["import helper", "def slugify(t): return t"],
      "broken.py": ["def (:"],
      "helper.py": [],
      "tests/test_slug.py": TEST,
    };
    expect(await judged(files, ["helper.py", "broken.py"])).toMatch(/\(broken\.py\)/);
  });

  it("judges nothing without a trace, or when no added module was opened", async () => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-outside-loads-"));
    const input = {
      checkoutDir: dir,
      addedModules: ["org.py"],
      ownFiles: [],
      seamCommand: "python3 -m pytest",
    };
    expect(await outsideNamedLoads({ ...input, trace: { kind: "unavailable", reason: "off" } })).toBeNull();
    expect(
      await outsideNamedLoads({ ...input, trace: { kind: "traced", files: [], written: [] } }),
    ).toBeNull();
  });
});
