import { describe, expect, it } from "vitest";
import { folderWith as repoWith } from "../../test/support/test-repo.js";
import {
  importsOf,
  pytestAddopts,
  pytestConfigNamedBy,
  pytestConfigOf,
  pytestFunctionPattern,
  pytestSeamFiles,
  pytestSection,
  pythonComputedLoaders,
} from "./pytest-setup.js";
import { recordedValue } from "./test-paths.js";

describe("pytestSeamFiles: what pytest runs with a Python seam test (ADR 0019, amendment 4)", () => {
  it("pins conftest.py, package markers and configs up the test's folders, present or absent", () => {
    const repo = repoWith({
      "pytest.ini": "[pytest]\npythonpath = .\n",
      "conftest.py": "import pytest\n",
      "slug.py": "def slugify(t):\n    return t\n",
      "tests/unit/test_slug.py": "from slug import slugify\n",
      "tests/other/conftest.py": "# another folder's conftest\n",
      "tests/conftest.py": "import pytest\n",
    });
    const files = pytestSeamFiles(repo, ["tests/unit/test_slug.py"]);
    for (const path of [
      "conftest.py",
      "pytest.ini",
      ".pytest.ini",
      "tests/conftest.py",
      "tests/__init__.py",
      "tests/pytest.ini",
      "tests/tox.ini",
      "tests/setup.cfg",
      "tests/pyproject.toml",
      "tests/unit/conftest.py",
      "tests/unit/__init__.py",
      // The module the test imports, shadowed from the folder pytest puts first on sys.path.
      "tests/unit/slug.py",
      "tests/unit/slug/__init__.py",
      // pytest 9's TOML configs, in every folder up (stop 30).
      "pytest.toml",
      ".pytest.toml",
      "tests/pytest.toml",
      "tests/unit/.pytest.toml",
    ])
      expect(files).toContain(path);
    // Another folder's conftest, the program module, the root's packaging files and the seam itself stay editable.
    for (const path of [
      "tests/other/conftest.py",
      "slug.py",
      "__init__.py",
      "pyproject.toml",
      "tox.ini",
      "setup.cfg",
    ])
      expect(files).not.toContain(path);
    expect(files).not.toContain("tests/unit/test_slug.py");
  });

  // Review of stop 39: with every folder from the test up a package, a new root `__init__.py` makes
  // pytest import the root as a package before the test. Mutation: the root's marker never pinned → red.
  it("pins the root's __init__.py when every folder from the test up is a package", () => {
    const packaged = repoWith({
      "slug.py": "",
      "tests/__init__.py": "",
      "tests/test_slug.py": "from slug import slugify\n",
    });
    expect(pytestSeamFiles(packaged, ["tests/test_slug.py"])).toContain("__init__.py");
    const rootTest = repoWith({ "slug.py": "", "test_slug.py": "from slug import slugify\n" });
    expect(pytestSeamFiles(rootTest, ["test_slug.py"])).toContain("__init__.py");
  });

  it("adds the test helpers it imports, transitively, and the plugins configs and conftests name", () => {
    const repo = repoWith({
      "pyproject.toml": [
        "[project]",
        'name = "x"',
        "[tool.pytest.ini_options]",
        'pythonpath = ["src", "."]',
        'addopts = ["-p", "devtools.pytest_env", "-p", "no:cacheprovider", "-pdevtools.other"]',
        "[tool.black]",
        'addopts = "-p devtools.not_pytest"',
      ].join("\n"),
      "devtools/__init__.py": "",
      "devtools/pytest_env.py": "# a plugin: runs with every test\n",
      "devtools/other.py": "",
      "devtools/not_pytest.py": "",
      "tests/conftest.py": 'pytest_plugins = ["tests.fixtures.db", "devtools.conftest_plugin"]\n',
      "tests/fixtures/db.py": "from . import rows\n",
      "tests/fixtures/rows.py": "",
      "devtools/conftest_plugin.py": "",
      "tests/helpers.py": "from tests.support import (\n    expected,\n    other,\n)\n",
      "tests/support/__init__.py": "",
      "tests/support/expected.py": "",
      "tests/support/other.py": "",
      "tests/test_a.py": "import helpers\nfrom slug import slugify  # the program\nimport os, json\n",
      "src/slug.py": "",
    });
    const files = pytestSeamFiles(repo, ["tests/test_a.py"]);
    for (const path of [
      "devtools/pytest_env.py",
      "devtools/other.py",
      "devtools/__init__.py",
      "devtools/conftest_plugin.py",
      "tests/fixtures/db.py",
      "tests/fixtures/rows.py",
      "tests/helpers.py",
      "tests/support/__init__.py",
      "tests/support/expected.py",
      "tests/support/other.py",
    ])
      expect(files).toContain(path);
    for (const path of ["devtools/not_pytest.py", "src/slug.py"]) expect(files).not.toContain(path);
    // Every top-level name the test imports is pinned absent in tests/, where it would shadow.
    for (const path of ["tests/slug.py", "tests/json.py", "tests/os.py"]) expect(files).toContain(path);
  });

  // Found in review: `pythonpath = /opt/x` joined to "/opt/x", and a seam path must be repo-relative
  // (fingerprinting throws outside the checkout, which would have ended the observation).
  it("ignores pythonpath entries outside the repository", () => {
    const repo = repoWith({
      "pytest.ini": "[pytest]\npythonpath = /opt/x ../up .\naddopts = -p evil\n",
      "opt/x/evil.py": "",
      "tests/test_a.py": "import evil\n",
    });
    const files = pytestSeamFiles(repo, ["tests/test_a.py"]);
    expect(files.filter((f) => f.startsWith("/") || f.startsWith(".."))).toEqual([]);
    expect(files).not.toContain("opt/x/evil.py");
  });

  it("lists nothing for a seam without Python tests", () => {
    const repo = repoWith({ "test/a.test.js": "", "conftest.py": "" });
    expect(pytestSeamFiles(repo, ["test/a.test.js"])).toEqual([]);
  });
});

describe("pytestConfigOf: the root's pytest sections, which regression compares with base", () => {
  it("changes with the pytest section and not with the rest of the file", () => {
    const base = repoWith({
      "pyproject.toml":
        '[project]\nname = "x"\ndependencies = []\n[tool.pytest.ini_options]\naddopts = "-q"\n',
    });
    const dependency = repoWith({
      "pyproject.toml":
        '[project]\nname = "x"\ndependencies = ["attrs"]\n[tool.pytest.ini_options]\naddopts = "-q"\n',
    });
    const plugin = repoWith({
      "pyproject.toml":
        '[project]\nname = "x"\ndependencies = []\n[tool.pytest.ini_options]\naddopts = "-q -p evil"\n',
    });
    const added = repoWith({
      "pyproject.toml":
        '[project]\nname = "x"\ndependencies = []\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      "setup.cfg": "[tool:pytest]\naddopts = -p evil\n",
    });
    expect(pytestConfigOf(base)).not.toBeNull();
    expect(pytestConfigOf(dependency)).toBe(pytestConfigOf(base));
    expect(pytestConfigOf(plugin)).not.toBe(pytestConfigOf(base));
    expect(pytestConfigOf(added)).not.toBe(pytestConfigOf(base));
    expect(pytestConfigOf(repoWith({ "README.md": "" }))).toBeNull();
  });

  it("records the sections of the configs it is given in any folder, and reads one back by path", () => {
    const files = ["pkg/pyproject.toml", "pkg/tests/pytest.toml", "pytest.ini", "src/a.py"];
    const repo = repoWith({
      "pytest.ini": "[pytest]\naddopts = -q\n",
      "pkg/pyproject.toml": '[project]\nname = "pkg"\n',
      "pkg/tests/pytest.toml": '[pytest]\naddopts = ["-p", "x"]\n',
      "src/a.py": "",
    });
    const recorded = pytestConfigOf(repo, files);
    expect(JSON.parse(recorded ?? "null")).toEqual([
      ["pkg/tests/pytest.toml", '[pytest]\naddopts = ["-p", "x"]'.replace("[pytest]\n", "")],
      ["pytest.ini", "addopts = -q"],
    ]);
    expect(recordedValue(recorded, "pytest.ini")).toBe("addopts = -q");
    expect(recordedValue(recorded, "pkg/pyproject.toml")).toBeNull();
    expect(recordedValue(null, "pytest.ini")).toBeNull();
    // The default, the root's configs only: the nested ones are not read.
    expect(JSON.parse(pytestConfigOf(repo) ?? "null")).toEqual([["pytest.ini", "addopts = -q"]]);
  });

  it("reads each file's own section header", () => {
    expect(pytestSection("tox.ini", "[tox]\nenv = py\n[pytest]\naddopts = -x\n[flake8]\nx = 1\n")).toBe(
      "addopts = -x",
    );
    expect(pytestSection("setup.cfg", "[metadata]\nname = x\n")).toBeNull();
    expect(pytestSection("setup.cfg", "[tool:pytest]\n  addopts =\n    -p a\n")).toBe("addopts =\n    -p a");
    expect(
      pytestSection(
        "pyproject.toml",
        '[tool.pytest.ini_options]\naddopts = [\n  "-p",\n  "a",\n]\n[tool.x]\n',
      ),
    ).toBe('addopts = [\n  "-p",\n  "a",\n]');
    expect(pytestSection("pytest.ini", "# no header\n")).toBe("# no header");
  });
});

describe("importsOf", () => {
  it("reads plain, from, relative and parenthesised imports", () => {
    const { absolute, relative } = importsOf(
      "import a.b as c, d\nfrom e.f import (\n    g,\n    h as i,\n)\nfrom . import j\nfrom ..k import l\n    import m\n",
    );
    expect(absolute).toEqual(["a.b", "d", "e.f", "e.f.g", "e.f.h", "m"]);
    expect(relative).toEqual([
      { dots: 1, name: "", names: ["j"] },
      { dots: 2, name: "k", names: ["l"] },
    ]);
  });
});

// Regression (stop 30, found in review): pytest read these as its config, devflow's header match
// saw none, so a section added this way was no regression finding.
describe("pytestSection reads the header forms pytest reads", () => {
  it.each([
    ["pyproject.toml", '[tool.pytest.ini_options] # c\naddopts = "-p x"\n'],
    ["pyproject.toml", '[ tool.pytest.ini_options ]\naddopts = "-p x"\n'],
    ["pyproject.toml", '[tool."pytest".ini_options]\naddopts = "-p x"\n'],
    ["pyproject.toml", '[tool]\npytest.ini_options.addopts = "-p x"\n'],
    ["pyproject.toml", 'tool.pytest.addopts = ["-p", "x"]\n[project]\nname = "a"\n'],
    // Review, stop 41: valid TOML spellings a header search misses (pytest reads them with tomllib).
    ["pyproject.toml", '["tool".pytest.ini_options]\naddopts = "-p x"\n'],
    ["pyproject.toml", '[tool."\\u0070ytest".ini_options]\naddopts = "-p x"\n'],
    ["pyproject.toml", '[project]\nname = "a"\n[tool]\npytest = { ini_options = { addopts = "-p x" } }\n'],
    ["pyproject.toml", 'tool = { pytest = { ini_options = { addopts = "-p x" } } }\n'],
    ["pyproject.toml", '[tool.pytest.ini_options]\nminversion = "9"\n[tool."pytest"]\naddopts = "-p x"\n'],
    ["tox.ini", "[pytest] ; c\naddopts = -p x\n"],
    ["setup.cfg", "[tool:pytest] # c\naddopts = -p x\n"],
  ])("%s: %j", (name, text) => {
    expect(pytestSection(name, text)).toContain("-p");
  });
  it("still sees none in a file without one", () => {
    expect(
      pytestSection("pyproject.toml", '[project]\nname = "pytest-thing"\n[tool.black]\nline-length = 100\n'),
    ).toBeNull();
    expect(pytestSection("tox.ini", "[tox]\nenvlist = py311\n[testenv]\ncommands = pytest\n")).toBeNull();
  });
  it("keeps the section alone when it is all of tool.pytest; a file it cannot read as TOML counts whole", () => {
    const text = '[project]\nname = "a"\n[tool.pytest.ini_options]\naddopts = "-q"\n[tool.black]\nx = 1\n';
    expect(pytestSection("pyproject.toml", text)).toBe('addopts = "-q"');
    const broken = '[tool.black]\nx = "unclosed\n';
    expect(pytestSection("pyproject.toml", broken)).toBe(broken.trim());
  });

  // Second review, stop 41: an integer beyond 2^53 failed the parse (tomllib reads it), and the
  // header search alone saw no section.
  it("reads a file with an integer beyond 2^53", () => {
    const text = 'build-stamp = 9007199254740993\n["tool".pytest.ini_options]\naddopts = "-p evil"\n';
    expect(pytestSection("pyproject.toml", text)).toBe(text.trim());
    expect(pytestSection("pyproject.toml", "[tool.x]\nn = 9007199254740993\n")).toBeNull();
  });
});

/**
 * Regression (stop 31): a conftest importing every `plugin_*.py` of its folder by a computed name
 * loaded a new one the coder added (test/adversarial/pytest-conftest-fakes-the-seam.test.ts).
 */
describe("pythonComputedLoaders: seam code that imports by a name computed at run time", () => {
  const loaders = (lines: string[]) =>
    pythonComputedLoaders(repoWith({ "tests/conftest.py": `${lines.join("\n")}\n` }), ["tests/conftest.py"]);
  it.each([
    ["importlib over a glob", ["for p in paths:", "    importlib.import_module(p.stem)"]],
    ["__import__ of a variable", ["mod = __import__(name)"]],
    ["a spec from a computed path", ["spec = importlib.util.spec_from_file_location(n, str(p))"]],
    ["runpy over a path", ["runpy.run_path(os.path.join(here, f))"]],
    ["exec of a file's text", ["exec(open(path).read())"]],
    ["an f-string name", ['importlib.import_module(f"plugins.{name}")']],
    [
      "a spec loaded from a literal path",
      ['spec = spec_from_file_location("plug", "tests/plug.py")', "spec.loader.exec_module(m)"],
    ],
    ["a plugin imported through the plugin manager", ['config.pluginmanager.import_plugin("tests." + name)']],
    ["a computed pytest_plugins", ['pytest_plugins = [f"plugins.{p.stem}" for p in HERE.glob("*.py")]']],
    // Stop 32: a loader called by another name.
    ["import_module imported as another name", ["from importlib import import_module as load", "load(name)"]],
    ["import_module bound to a name", ["load = importlib.import_module", "load(name)"]],
    ["import_module looked up by name", ['getattr(importlib, "import_module")(name)']],
    ["import_module passed on", ["mods = list(map(importlib.import_module, names))"]],
    ["eval bound to a name", ["run = eval", "run(text)"]],
    [
      "a parenthesised import with an alias",
      ["from importlib.util import (", "    spec_from_file_location as spec_of,", ")", "spec_of(n, p)"],
    ],
    // Review (stop 32): more shapes the first reading missed.
    [
      "a pytest_plugins extended by a comprehension",
      ['pytest_plugins = ["a"]', 'pytest_plugins += [f"t.{p}" for p in ps]'],
    ],
    ["an annotated pytest_plugins", ["pytest_plugins: list = names()"]],
    [
      "a pytest_plugins set inside try",
      ["try:", "    pytest_plugins = found()", "except ImportError:", "    pass"],
    ],
    ["a pytest_plugins extended by a call", ["pytest_plugins.extend(found())"]],
    ["builtins.exec", ["builtins.exec(p.read_text())"]],
    ["exec looked up by name", ['getattr(builtins, "exec")(text)']],
    ["pkgutil.resolve_name", ['pkgutil.resolve_name("tests." + n)']],
    ["pydoc.locate", ["pydoc.locate(name)"]],
    ["werkzeug's import_string", ["import_string(dotted)"]],
    ["pytest.importorskip of a variable", ["pytest.importorskip(name)"]],
    [
      "a binding after ; on an import line",
      ["from importlib import import_module; load = import_module", "load(n)"],
    ],
    ["a loader after a string holding #", ['tag = "#"; importlib.import_module("tests." + p.stem)']],
    // Stop 32: import lookup changed as the code runs.
    ["sys.path.insert", ['sys.path.insert(0, str(HERE / "support"))']],
    ["sys.path.append", ["sys.path.append(os.path.dirname(__file__))"]],
    ["sys.path assigned", ["sys.path = [HERE] + sys.path"]],
    ["sys.path extended", ["sys.path += extra"]],
    ["site.addsitedir", ["site.addsitedir(vendor)"]],
    ["an import hook", ["sys.meta_path.insert(0, Finder())"]],
  ])("%s", (_, lines) => {
    expect(loaders(lines)).toEqual(["tests/conftest.py"]);
  });
  it.each([
    ["literal names", ['importlib.import_module("plugins.env")', "__import__('json')"]],
    ["a literal pytest_plugins", ['pytest_plugins = ["plugins.env", "plugins.db"]']],
    ["a literal pytest_plugins string", ['pytest_plugins = "plugins.env"']],
    ["a comment", ["# importlib.import_module(name) would be too clever here"]],
    ["a method named exec", ["cursor.exec(query)"]],
    ["plain imports", ["import slug", "from helpers import COLLAPSED"]],
    [
      "a loader imported under its own name and called with a literal",
      ["from importlib import import_module, reload", 'import_module("plugins.env")'],
    ],
    ["the words in strings and names", ['"""Checks that exec_mode and evaluation work."""', 'mode = "exec"']],
    // Review (stop 32): look-alikes the first reading counted.
    [
      "loader names in docstrings, strings and mocks",
      [
        '"""The hook must exec the command."""',
        'cmd = "docker exec -it web ls"',
        'with mock.patch("importlib.import_module"):',
        '    assert hasattr(loader, "exec_module")',
      ],
    ],
    ["find_spec of a literal", ['HAS_NUMPY = importlib.util.find_spec("numpy") is not None']],
    ["a keyword argument named eval", ["trainer.fit(data, eval=False)"]],
    ["sys.path read", ["assert HERE in sys.path", "paths = list(sys.path)", "if sys.path == before: pass"]],
    [
      "a plain import after ; or a continuation",
      [
        "import sys; from importlib import import_module",
        "from importlib import \\",
        "    reload",
        'import_module("plugins.env")',
      ],
    ],
  ])("none for %s", (_, lines) => {
    expect(loaders(lines)).toEqual([]);
  });
});

/**
 * Regression (stop 31): a seam naming its config (`-c`, `--config-file`) runs with that config's
 * options only; devflow read the configs up the test's folders instead, so the plugin the named
 * config loads was not pinned (test/adversarial/pytest-conftest-fakes-the-seam.test.ts).
 */
describe("a config the pytest command names is the one read", () => {
  const repo = () =>
    repoWith({
      "tests/test_a.py": "",
      "pytest.ini": "[pytest]\naddopts = -p root_plugin\n",
      "ci/ci.cfg": "[tool:pytest]\naddopts = -p ci_plugin -m 'not slow'\npython_functions = check_*\n",
      "ci/ci.toml": '[tool.pytest.ini_options]\naddopts = ["-p", "toml_plugin"]\n',
      "root_plugin.py": "",
      "ci_plugin.py": "",
      "toml_plugin.py": "",
    });
  it.each([
    ["python3 -m pytest -c ci/ci.cfg tests/test_a.py", "ci/ci.cfg"],
    ["pytest --config-file=ci/ci.cfg tests", "ci/ci.cfg"],
    ["pytest --config-file 'ci/ci.toml'", "ci/ci.toml"],
    ["pytest -c missing.ini tests", null],
    ["pytest -c /etc/pytest.ini tests", null],
    ["pytest tests", null],
    // Review (stop 31): pytest's own arguments only, and `-c` with its value attached.
    ["pip install -c constraints.txt -e . && pytest -c ci/ci.cfg tests", "ci/ci.cfg"],
    ["pip install -c ci/ci.cfg -e . && pytest tests", null],
    ["pytest -cci/ci.cfg tests", "ci/ci.cfg"],
  ] as const)("%s → %s", (command, expected) => {
    expect(pytestConfigNamedBy(repo(), command)).toBe(expected);
  });
  it("reads its options (plugins, addopts, python_functions) instead of the root's", () => {
    const dir = repo();
    const command = "python3 -m pytest -c ci/ci.cfg tests/test_a.py";
    expect(pytestSeamFiles(dir, ["tests/test_a.py"], command)).toContain("ci_plugin.py");
    expect(pytestSeamFiles(dir, ["tests/test_a.py"], command)).not.toContain("root_plugin.py");
    expect(pytestSeamFiles(dir, ["tests/test_a.py"], "pytest -c ci/ci.toml tests")).toContain(
      "toml_plugin.py",
    );
    expect(pytestSeamFiles(dir, ["tests/test_a.py"])).toContain("root_plugin.py");
    expect(pytestAddopts(dir, "tests/test_a.py", command)).toBe("-p ci_plugin -m 'not slow'");
    expect(pytestFunctionPattern(dir, "tests/test_a.py", command)).toBe("check_*");
    expect(pytestFunctionPattern(dir, "tests/test_a.py")).toBeNull();
  });
});

describe("a named config read as pytest reads it by its suffix (review, stop 31)", () => {
  it.each([
    ["ci/x.conf", "[pytest]\npython_functions = check_*\n", null],
    ["ci/x.ini", "python_functions = check_*\n", null],
    ["ci/x.ini", "[pytest]\npython_functions = check_*\n", "check_*"],
  ] as const)("%s %j → %s", (path, text, expected) => {
    const dir = repoWith({ "tests/test_a.py": "", [path]: text });
    expect(pytestFunctionPattern(dir, "tests/test_a.py", `pytest -c ${path} tests`)).toBe(expected);
  });
});
