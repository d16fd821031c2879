import { join, posix } from "node:path";
import picomatch from "picomatch";
import { parse as parseToml } from "smol-toml";
import { pythonSourceViews } from "./source-text.js";
import { foldersUp, isRegularFile, isTestPath, recordOfFiles, scannedText } from "./test-paths.js";

/**
 * Everything pytest runs with a Python seam test besides the test itself, as repo-relative paths
 * the seam's fingerprint must cover: existing files (their edits are tampering) and paths that do
 * not exist on base (creating one is tampering). ADR 0019, amendment 4.
 *
 * pytest loads code by *location*, not only by import: a `conftest.py` in the test's folder or any
 * folder above it, a package's `__init__.py`, the first `pytest.toml`/`pytest.ini` (or a
 * `pyproject.toml`/`tox.ini`/`setup.cfg` with a pytest section) walking up from the test, the plugins its `addopts`
 * names with `-p` and a conftest's `pytest_plugins`, and the modules the test imports, found on
 * a `sys.path` pytest prepends the test's own folder to. So a coder that *creates*
 * `tests/conftest.py` patching the code under test, or a `tests/slug.py` that shadows the module
 * the test imports, makes the seam pass without changing the code (measured: the lane completed
 * under a lenient critic). Listing the absent paths makes their creation a seam-integrity finding.
 *
 * Read on the base checkout `cwd`. Only what pytest itself reaches is listed: program modules the
 * test imports (not test paths) stay editable, as the fix may change them.
 */
export function pytestSeamFiles(cwd: string, seamFiles: readonly string[], command = ""): string[] {
  const tests = seamFiles.filter((f) => f.endsWith(".py") && isRegularFile(join(cwd, f)));
  if (tests.length === 0) return [];
  const out = new Set<string>();
  /** Each existing pytest config up the tests' folders, with its text (read once). */
  const configs = new Map<string, string>();
  for (const test of tests)
    for (const dir of foldersUp(test)) {
      const at = (name: string) => (dir === "." ? name : `${dir}/${name}`);
      for (const name of ["conftest.py", ...WHOLE_FILE_CONFIGS]) out.add(at(name));
      // A folder's package marker makes it a package. The root's changes nothing for pytest unless
      // every folder from the test up is a package: then pytest goes on above the checkout and
      // imports the root as a package before the test (review of stop 39: a new root
      // `__init__.py` replacing the function under test completed).
      if (dir !== "." || importBase(cwd, test) === ".") out.add(at("__init__.py"));
      for (const name of SECTION_CONFIGS) {
        const path = at(name);
        const text = scannedText(join(cwd, path));
        // The root's tox.ini/setup.cfg/pyproject.toml also hold the project's packaging: regression
        // compares their pytest section (`pytestConfigOf`). A folder's own one that would become
        // the seam's config, or already is, is protected whole.
        if (dir !== "." && (text === null || pytestSection(name, text) !== null)) out.add(path);
        if (text !== null) configs.set(path, text);
      }
      for (const name of WHOLE_FILE_CONFIGS) {
        const text = isRegularFile(join(cwd, at(name))) ? scannedText(join(cwd, at(name))) : null;
        if (text !== null) configs.set(at(name), text);
      }
    }

  // A config the command names is the only one pytest reads options from; it is pinned whole.
  const named = pytestConfigNamedBy(cwd, command);
  if (named !== null) out.add(named); // whatever form names it (`-cci.ini`, a quoted path)
  const sections: [string, string | null][] =
    named !== null
      ? [[named, namedConfigSection(cwd, named)]]
      : [...configs].map(([config, text]) => [config, pytestSection(posix.basename(config), text)]);

  // Where pytest finds modules: the root (rootdir, `python -m`), each test's first folder up that is
  // not a package (prepended by pytest's default import mode), and the `pythonpath` entries.
  const roots = new Set<string>(["."]);
  for (const test of tests) roots.add(importBase(cwd, test));
  const plugins: string[] = [];
  for (const [config, section] of sections) {
    if (section === null) continue;
    const dir = posix.dirname(config);
    for (const entry of iniList(section, "pythonpath"))
      if (!posix.isAbsolute(entry)) roots.add(posix.normalize(posix.join(dir, entry)));
    plugins.push(...pluginOptions(iniValue(section, "addopts") ?? ""));
  }

  const pending: string[] = [];
  const visit = (file: string) => {
    out.add(file);
    pending.push(file);
  };
  for (const name of plugins) for (const file of moduleFiles(cwd, name, roots)) visit(file);
  for (const file of [...out])
    if (posix.basename(file) === "conftest.py" && isRegularFile(join(cwd, file))) visit(file);
  for (const test of tests) {
    pending.push(test);
    // A module the test imports by a top-level name, created in a folder pytest searches before
    // the real one's (the one it prepends for the test, a `pythonpath` entry listed earlier), would
    // shadow it: such paths must stay absent, in every folder searched (test code only).
    for (const name of importsOf(scannedText(join(cwd, test)) ?? "").absolute) {
      const top = name.split(".")[0] ?? "";
      for (const root of roots) {
        if (root.startsWith("..")) continue;
        for (const path of [`${top}.py`, `${top}/__init__.py`].map((p) => posix.join(root, p)))
          if (!isRegularFile(join(cwd, path)) && isTestPath(path)) out.add(path);
      }
    }
  }

  // The test code all of that imports, transitively (test paths only: a program module is the fix's).
  const walked = new Set<string>();
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (walked.has(file)) continue;
    walked.add(file);
    const text = scannedText(join(cwd, file)) ?? "";
    const { absolute, relative } = importsOf(text);
    const found = [
      ...absolute.flatMap((n) => moduleFiles(cwd, n, roots)),
      ...relative.flatMap((r) => relativeModuleFiles(cwd, file, r)),
    ];
    for (const f of found) if (isTestPath(f) && !walked.has(f)) visit(f);
    // A conftest's `pytest_plugins` run with every test, whatever they are called.
    if (posix.basename(file) === "conftest.py")
      for (const f of pytestPlugins(text).flatMap((n) => moduleFiles(cwd, n, roots)))
        if (!walked.has(f)) visit(f);
  }
  for (const f of seamFiles) out.delete(f);
  return [...out].sort();
}

/**
 * The Python files among `files` (the seam's, after `pytestSeamFiles`: its conftests, plugins and
 * imported test modules) that load modules by a name computed when they run: `importlib`'s
 * `import_module`, `__import__`, `spec_from_file_location`, `runpy`, `exec` over something that is
 * not a string literal (`exec` the builtin, not a method such as a cursor's), or a `pytest_plugins`
 * that is not a literal list. Stop 31: a conftest
 * importing every `plugin_*.py` of its folder loaded a new one the coder added, which replaced the
 * function under test. Read from the base's text (the user's code): a shape this misses is only
 * missed, never planted by the coder.
 */
export function pythonComputedLoaders(cwd: string, files: readonly string[]): string[] {
  return files
    .filter((f) => f.endsWith(".py") && isRegularFile(join(cwd, f)))
    .filter((f) => {
      const { withoutComments, codeOnly } = pythonSourceViews(scannedText(join(cwd, f)) ?? "");
      return (
        COMPUTED_PYTHON_LOAD.test(withoutComments) ||
        COMPUTED_PYTEST_PLUGINS.test(withoutComments) ||
        PYTEST_PLUGINS_CHANGED.test(codeOnly) ||
        IMPORT_PATH_CHANGED.test(codeOnly) ||
        LOADER_LOOKED_UP.test(withoutComments) ||
        LOADER_PASSED_ON.test(withoutPlainLoaderImports(codeOnly))
      );
    })
    .sort();
}

/** The loading functions whose first argument names what they load. */
const NAMED_LOADERS =
  "import_module|__import__|run_path|run_module|load_source|import_string|resolve_name|importorskip";
/** The loading functions that load by a path or spec, whatever their arguments. */
const SPEC_LOADERS =
  "spec_from_file_location|SourceFileLoader|exec_module|load_module|import_plugin|iter_modules|walk_packages";
/** The builtins that run text as code, also reached through `builtins.` or `__builtins__.`. */
const CODE_RUNNERS = String.raw`(?:(?<![.\w])|\b(?:builtins|__builtins__)\s*\.\s*)(?:exec|execfile|eval)`;

/**
 * A loading call whose first argument is not one plain string literal (`import_module`,
 * `__import__`, `runpy`, werkzeug's `import_string`, `pkgutil.resolve_name`, `pydoc.locate`,
 * `pytest.importorskip`, the builtin `exec`/`eval`), or a call that loads by a path or spec whatever
 * its arguments (`spec_from_file_location`, `exec_module`, `import_plugin`, `pkgutil.iter_modules`:
 * review, stop 31). `find_spec` only finds (review, stop 32: `find_spec("numpy")` in a conftest
 * made it a loader); what then loads the spec is named here.
 */
const COMPUTED_PYTHON_LOAD = new RegExp(
  String.raw`(?:\b(?:${NAMED_LOADERS})|\bpydoc\s*\.\s*locate|${CODE_RUNNERS})\s*\(\s*(?!\s|[rRbBuU]{0,2}(["'])[^"'\\\n]*\1\s*[,)])|\b(?:${SPEC_LOADERS})\s*\(`,
);
/**
 * A loading function named but not called there (stop 32), on the code without strings: bound to
 * another name (`import_module as load`, `load = importlib.import_module`) or passed on
 * (`map(importlib.import_module, names)`), and the builtins `exec`/`eval` likewise; the call then
 * goes by a name `COMPUTED_PYTHON_LOAD` does not know. Plain `from … import` statements are taken
 * out first (`withoutPlainLoaderImports`). Strings are out, so a docstring saying "exec" or
 * `mock.patch("importlib.import_module")` is none (review, stop 32).
 */
const LOADER_PASSED_ON = new RegExp(
  // (not a keyword argument or an assignment to the name: `fit(data, eval=False)`)
  String.raw`\b(?:${NAMED_LOADERS}|${SPEC_LOADERS})\b(?!\s*\()|${CODE_RUNNERS}\b(?!\s*\(|\s*=(?!=))`,
);
/** A loading function looked up by its name: `getattr(importlib, "import_module")`, `getattr(builtins, "exec")`. */
const LOADER_LOOKED_UP = new RegExp(
  String.raw`\bgetattr\s*\([^,()]*,\s*[rRuU]?(["'])(?:${NAMED_LOADERS}|${SPEC_LOADERS}|exec|execfile|eval)\1`,
);
/**
 * The code with each loader name a `from … import` statement imports under its own name taken out;
 * continuation lines joined and `;`-separated statements split first (review, stop 32: `import sys;
 * from importlib import import_module` kept the name, `…; load = import_module` lost the binding).
 * A parenthesised name list is read up to 4,000 characters (an unclosed one is no quadratic scan).
 */
function withoutPlainLoaderImports(code: string): string {
  const statements = code.replace(/\\\r?\n/g, " ").replace(/;/g, "\n");
  return statements.replace(
    /^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]{0,4000}\)|[^\n(]*)/gm,
    (statement) => statement.replace(LOADER_NOT_RENAMED, ""),
  );
}
/** A loader name not followed by `as` (imported under its own name). */
const LOADER_NOT_RENAMED = new RegExp(String.raw`\b(?:${NAMED_LOADERS}|${SPEC_LOADERS})\b(?!\s+as\b)`, "g");
/**
 * `pytest_plugins = …` (indented, or annotated) that is not a string or a list/tuple of string
 * literals. Each list item is one quoted string then an optional comma: no two ways to match the
 * same text (review, stop 32: `\s*,?\s*` took seconds on a long list followed by `+ x`).
 */
const COMPUTED_PYTEST_PLUGINS =
  /^[ \t]*pytest_plugins\s*(?::[^=\n]*)?=(?!=)[ \t]*(?![ \t]|[rRuU]?(["'])[^"'\n]*\1\s*$|[[(]\s*(?:[rRuU]?(["'])[^"'\n]*\2\s*(?:,\s*)?)*[\])]\s*$)/m;
/**
 * Where imports are looked up, changed as the code runs: `sys.path` edited (`insert`, `append`,
 * `+=`, assigned), `site.addsitedir`, import hooks (`sys.meta_path`, `sys.path_hooks`). Stop 32: a
 * conftest putting `tests/support` first on `sys.path` let a new `tests/support/slug.py` shadow the
 * program module the seam's test imports; what such an import finds is decided when it runs.
 */
const IMPORT_PATH_CHANGED =
  /\bsys\s*\.\s*path\s*(?:\.\s*(?:insert|append|extend|__iadd__)\s*\(|\+=|\[[^\]\n]*\]\s*=(?!=)|=(?!=))|\baddsitedir\s*\(|\bsys\s*\.\s*(?:meta_path|path_hooks)\b/;
/** `pytest_plugins` changed after it is set (`+=`, `.extend(`, `.append(`): what it holds is decided as it runs. */
const PYTEST_PLUGINS_CHANGED = /\bpytest_plugins\s*(?:\+=|\.\s*(?:extend|append|insert|__iadd__)\s*\()/;

/**
 * The pytest sections of the pytest configs among `files` (repo-relative, any folder: the base's
 * tracked files; by default the root's), as one stable string, `[path, section]` pairs by path;
 * null when none has one. Regression records it on base and compares each changed config with it
 * (`recordedValue`): a changed pytest section (`addopts = -p evil`, `-k "not test_x"`) or a
 * new one (a monorepo package's pyproject.toml gaining `[tool.pytest.ini_options]`, which then is
 * the config of the tests below it) changes how tests run, while the rest of such a file (a
 * dependency) is the project's and may change.
 */
export function pytestConfigOf(dir: string, files: readonly string[] = PYTEST_CONFIG_FILES): string | null {
  return recordOfFiles(files.filter(isPytestConfigName), (path) => pytestSectionOf(dir, path));
}

/** The pytest section of the config at repo path `path` in `dir`; null when absent or without one. */
export function pytestSectionOf(dir: string, path: string): string | null {
  const text = scannedText(join(dir, path));
  return text === null ? null : pytestSection(posix.basename(path), text);
}

/**
 * The repository file a pytest command names as its config (`-c path`, `-c=path`, `--config-file
 * path`, `--config-file=path`), repo-relative; null when it names none or one that is not a file
 * of the checkout. Stop 31: with it pytest reads that file's options only (its `addopts` plugins,
 * `pythonpath`), and devflow read the configs up the test's folders instead.
 */
export function pytestConfigNamedBy(dir: string, command: string): string | null {
  // pytest's own arguments only (review, stop 31: `pip install -c constraints.txt && pytest …`).
  const at = /(?:^|[\s;&|(/])(?:py\.test|pytest)(?=\s|$)/.exec(command);
  if (!at) return null;
  const args = command.slice(at.index + at[0].length).split(/\s(?:&&|\|\||;|\|)\s/)[0] ?? "";
  const match = /(?:^|\s)(?:--config-file(?:=|\s+)|-c(?:=|\s+)?)(?:"([^"]+)"|'([^']+)'|([^\s"'&|;]+))/.exec(
    args,
  );
  const path = match ? (match[1] ?? match[2] ?? match[3] ?? "") : "";
  if (path === "" || posix.isAbsolute(path)) return null;
  const rel = posix.normalize(path);
  return rel.startsWith("..") || !isRegularFile(join(dir, rel)) ? null : rel;
}

/** A config named by `-c`, read as pytest reads it by its extension: `.toml` as TOML, `.cfg` as setup.cfg, else ini. */
function namedConfigSection(dir: string, path: string): string | null {
  const text = scannedText(join(dir, path));
  if (text === null) return null;
  const base = posix.basename(path);
  if (isPytestConfigName(base)) return pytestSection(base, text) ?? "";
  // As pytest reads a named file by its suffix: TOML, setup.cfg's `[tool:pytest]`, an ini file's
  // `[pytest]` (none: no options); any other suffix gives no options at all (review, stop 31).
  const as = base.endsWith(".toml")
    ? "pyproject.toml"
    : base.endsWith(".cfg")
      ? "setup.cfg"
      : base.endsWith(".ini")
        ? "tox.ini"
        : null;
  return as === null ? "" : (pytestSection(as, text) ?? "");
}

/** Whether a repo path is named like one of pytest's config files, in any folder. */
export function isPytestConfigName(path: string): boolean {
  return PYTEST_CONFIG_FILES.includes(posix.basename(path));
}

/**
 * The pytest section pytest runs `test` (a repo-relative file) with: the config the seam `command`
 * names with `-c`/`--config-file` (pytest then reads no other), else, as pytest's `locate_config`
 * does, the first folder from the test's up holding one of `PYTEST_CONFIG_FILES` with a pytest
 * section (`pytest.toml`/`pytest.ini` count even without one), and in it the first such file in
 * that order. Null when there is none.
 */
export function pytestSectionFor(dir: string, test: string, command = ""): string | null {
  const named = pytestConfigNamedBy(dir, command);
  if (named !== null) return namedConfigSection(dir, named);
  for (const folder of foldersUp(test)) {
    const [first] = pytestSections(dir, folder);
    if (first) return first[1];
  }
  return null;
}

/** The first `python_functions` pattern of the config pytest runs `test` with (which functions it collects), or null. */
export function pytestFunctionPattern(dir: string, test: string, command = ""): string | null {
  const section = pytestSectionFor(dir, test, command);
  return section === null ? null : (iniList(section, "python_functions")[0] ?? null);
}

/** The `python_files` patterns of the config pytest runs `test` with (which modules it collects); [] when unset. */
function pytestFilePatterns(dir: string, test: string, command = ""): string[] {
  const section = pytestSectionFor(dir, test, command);
  return section === null ? [] : iniList(section, "python_files");
}

/** pytest's own `python_files` when no config sets it. */
const DEFAULT_PYTHON_FILES = ["test_*.py", "*_test.py"];

/**
 * Which module names pytest collects from a folder it searches, for the config it runs `test`
 * with: `python_files`, else pytest's default, matched against the base name (a pattern with a
 * "/" never matches one). Without a test file ("") the default.
 */
export function pytestFileNames(
  dir: string,
  test: string,
  command = "",
): { patterns: string[]; collects: (name: string) => boolean } {
  const configured = test === "" ? [] : pytestFilePatterns(dir, test, command);
  const patterns = configured.length > 0 ? configured : DEFAULT_PYTHON_FILES;
  const matches = picomatch(patterns);
  return { patterns, collects: (name) => matches(name) };
}

/**
 * The `addopts` of the config pytest runs `test` with, as one command line; "" when none. A TOML
 * list's items are its arguments as they are, so one with a space (`"-m", "not slow"`) is quoted.
 */
export function pytestAddopts(dir: string, test: string, command = ""): string {
  const section = pytestSectionFor(dir, test, command);
  const value = (section === null ? null : iniValue(section, "addopts"))?.trim() ?? "";
  if (value.startsWith("["))
    return [...value.matchAll(/"([^"]*)"|'([^']*)'/g)]
      .map((m) => m[1] ?? m[2] ?? "")
      .map((item) => (/[\s"']/.test(item) ? `'${item.replace(/'/g, "'\\''")}'` : item))
      .join(" ");
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}

/** `[file, section]` for each of `folder`'s `PYTEST_CONFIG_FILES` that has a pytest section, in pytest's order. */
function pytestSections(dir: string, folder: string): [string, string][] {
  const sections: [string, string][] = [];
  for (const name of PYTEST_CONFIG_FILES) {
    const section = pytestSectionOf(dir, posix.join(folder, name));
    if (section !== null) sections.push([name, section]);
  }
  return sections;
}

/**
 * pytest's config files in the order it prefers them within one folder (pytest 9's
 * `locate_config`): regression compares their pytest sections in every folder (`pytestConfigOf`).
 */
export const PYTEST_CONFIG_FILES: readonly string[] = [
  "pytest.toml",
  ".pytest.toml",
  "pytest.ini",
  ".pytest.ini",
  "pyproject.toml",
  "tox.ini",
  "setup.cfg",
];

/** Configs that are pytest's whole (the config even when empty): any folder's is protected, present or absent. */
const WHOLE_FILE_CONFIGS = ["pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"] as const;
/** Configs that are pytest's only when they hold a pytest section. */
const SECTION_CONFIGS = ["pyproject.toml", "tox.ini", "setup.cfg"] as const;

/** The text of a config's pytest section, trimmed; null when the file has none. */
export function pytestSection(name: string, text: string): string | null {
  // Headers as pytest's parsers read them: spaces and quotes inside a TOML header, a trailing
  // comment (review, stop 30: `[ tool.pytest.ini_options ]`, `[tool."pytest".ini_options]` and
  // `[pytest] ; c` were pytest's config and devflow saw none).
  const header =
    name === "pyproject.toml"
      ? /^\s*\[\s*tool\s*\.\s*["']?pytest["']?(?:\s*\.\s*["']?ini_options["']?)?\s*\]\s*(?:#.*)?$/
      : name === "setup.cfg"
        ? /^\s*\[\s*tool:pytest\s*\]\s*(?:[#;].*)?$/
        : /^\s*\[\s*pytest\s*\]\s*(?:[#;].*)?$/;
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => header.test(l));
  // pytest's settings as dotted TOML keys (`tool.pytest.addopts = …` at the top, `pytest.… = …`
  // under `[tool]`): not one section, so the whole file counts.
  if (start < 0 && name === "pyproject.toml" && DOTTED_PYTEST_KEY.test(text)) return text.trim();
  if (start < 0 && name !== "pyproject.toml")
    return (WHOLE_FILE_CONFIGS as readonly string[]).includes(name) ? text.trim() : null;
  const rest = lines.slice(start + 1);
  // The next header starts at column 0 (`[tool.black]`, `[[tool.x]]`); a value's continuation lines
  // are indented or start with a quote or `]`.
  const end = rest.findIndex((l) => /^\[/.test(l));
  const section =
    start < 0
      ? null
      : rest
          .slice(0, end < 0 ? rest.length : end)
          .join("\n")
          .trim();
  return name === "pyproject.toml" ? asTomlReadsIt(text, section, lines[start] ?? "") : section;
}

/**
 * The section a header search found in a pyproject.toml, checked against the file as TOML reads it
 * (pytest reads it with `tomllib`): when `tool.pytest` holds anything that section alone does not
 * say (a quoted or escaped key, `["tool".pytest.ini_options]` or `[tool."\u0070ytest"]`, an inline
 * table, a second table), the whole file counts, as for dotted keys. Review, stop 41: a new root
 * `["tool".pytest.ini_options]` loading a plugin was pytest's configuration, devflow read none, and
 * regression passed with a test broken.
 */
function asTomlReadsIt(text: string, section: string | null, header: string): string | null {
  const whole = tomlPytestTable(text);
  // Not TOML to smol-toml, which may still be TOML to pytest: the whole file counts (second review,
  // stop 41: an integer beyond 2^53 made the parse fail while tomllib read the file).
  if (whole === undefined) return text.trim();
  if (whole === null) return section;
  return section !== null && tomlPytestTable(`${header}\n${section}`) === whole ? section : text.trim();
}

/** `tool.pytest` of a TOML text as JSON; null when absent, undefined when the text is not TOML. */
function tomlPytestTable(text: string): string | null | undefined {
  try {
    const tool = parseToml(text, { integersAsBigInt: true }).tool;
    const pytest =
      tool !== null && typeof tool === "object" ? (tool as Record<string, unknown>).pytest : undefined;
    return pytest === undefined
      ? null
      : JSON.stringify(pytest, (_key, value) => (typeof value === "bigint" ? `${value}n` : value));
  } catch {
    return undefined;
  }
}

const DOTTED_PYTEST_KEY = /^\s*(?:["']?tool["']?\s*\.\s*)?["']?pytest["']?\s*\./m;

/** An ini/toml key's value in a section (continuation lines of an ini value included); null when absent. */
function iniValue(section: string, key: string): string | null {
  const lines = section.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^\\s*${key}\\s*[=:]`).test(l));
  if (at < 0) return null;
  const first = (lines[at] ?? "").replace(/^[^=:]*[=:]/, "");
  const more: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!/^\s+\S/.test(line) && !/^\s*["'\]]/.test(line)) break;
    more.push(line);
  }
  return [first, ...more].join(" ");
}

/** A list-valued setting (`pythonpath = src tests`, toml `["src", "tests"]`) as its words. */
function iniList(section: string, key: string): string[] {
  return (iniValue(section, key) ?? "").split(/[\s,[\]"']+/).filter((w) => w !== "");
}

/** The plugin modules `-p name` / `-pname` in an addopts value names (`-p no:x` disables, names nothing). */
function pluginOptions(addopts: string): string[] {
  const words = addopts.split(/[\s,[\]"']+/).filter((w) => w !== "");
  const out: string[] = [];
  words.forEach((word, i) => {
    const name =
      word === "-p" ? words[i + 1] : word.startsWith("-p") && word.length > 2 ? word.slice(2) : undefined;
    if (name && !name.startsWith("no:") && /^[\w.]+$/.test(name)) out.push(name);
  });
  return out;
}

/** The module names a conftest's `pytest_plugins = "x"` / `["a.b", "c"]` lists. */
function pytestPlugins(text: string): string[] {
  const match = /^pytest_plugins\s*=\s*(\[[^\]]*\]|\([^)]*\)|["'][^"']*["'])/m.exec(text);
  return match ? [...(match[1] ?? "").matchAll(/["']([\w.]+)["']/g)].map((m) => m[1] ?? "") : [];
}

interface PythonImports {
  /** `import a.b`, `from a.b import c` (also `a.b.c`, as c may be a module). */
  absolute: string[];
  /** `from . import x`, `from ..pkg import y`: dots and the rest, as written. */
  relative: { dots: number; name: string; names: string[] }[];
}

/** The imports of a Python file, read from its text (statements at any indentation; strings not parsed). */
export function importsOf(text: string): PythonImports {
  const absolute: string[] = [];
  const relative: PythonImports["relative"] = [];
  // Parenthesised name lists span lines: joined first.
  const code = text.replace(/\(([^()]*)\)/g, (_, inner: string) => `(${inner.replace(/\s*\n\s*/g, " ")})`);
  for (const line of code.split(/\r?\n/)) {
    const plain = /^\s*import\s+(.+)$/.exec(line);
    if (plain)
      for (const part of (plain[1] ?? "").split(",")) {
        const name = part.trim().split(/\s+/)[0] ?? "";
        if (/^[\w.]+$/.test(name)) absolute.push(name);
      }
    const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?([^)#]+)/.exec(line);
    if (!from) continue;
    const names = (from[3] ?? "")
      .split(",")
      .map((p) => p.trim().split(/\s+/)[0] ?? "")
      .filter((n) => /^\w+$/.test(n));
    const dots = (from[1] ?? "").length;
    const module = from[2] ?? "";
    if (dots > 0) relative.push({ dots, name: module, names });
    else if (module !== "") absolute.push(module, ...names.map((n) => `${module}.${n}`));
  }
  return { absolute, relative };
}

/** The repository files a module name resolves to under each root: `a/b.py`, `a/b/__init__.py` and the packages' `__init__.py`. */
function moduleFiles(cwd: string, name: string, roots: ReadonlySet<string>): string[] {
  const parts = name.split(".").filter((p) => p !== "");
  const out: string[] = [];
  for (const root of roots) {
    // A pythonpath entry escaping the repository is not the seam's files (and seam paths must be
    // repo-relative: fingerprinting throws outside the checkout). Absolute entries never get here.
    if (root.startsWith("..")) continue;
    const found = [
      `${posix.join(root, ...parts)}.py`,
      posix.join(root, ...parts, "__init__.py"),
      ...parts.slice(0, -1).map((_, i) => posix.join(root, ...parts.slice(0, i + 1), "__init__.py")),
    ].filter((p) => isRegularFile(join(cwd, p)));
    out.push(...found);
  }
  return out;
}

function relativeModuleFiles(cwd: string, file: string, imp: PythonImports["relative"][number]): string[] {
  let dir = posix.dirname(file);
  for (let i = 1; i < imp.dots; i++) dir = posix.dirname(dir);
  const base = imp.name === "" ? dir : posix.join(dir, ...imp.name.split("."));
  const candidates = [
    `${base}.py`,
    posix.join(base, "__init__.py"),
    ...imp.names.flatMap((n) => [posix.join(base, `${n}.py`), posix.join(base, n, "__init__.py")]),
  ];
  return candidates
    .map((p) => posix.normalize(p))
    .filter((p) => !p.startsWith("..") && isRegularFile(join(cwd, p)));
}

/** The folder pytest's default import mode puts first on sys.path for a test: its first folder up without `__init__.py`. */
function importBase(cwd: string, test: string): string {
  for (const dir of foldersUp(test))
    if (dir === "." || !isRegularFile(join(cwd, dir, "__init__.py"))) return dir;
  return ".";
}
