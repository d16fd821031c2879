import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { coderScript, type LaneRun, runLane, withLenientCritic } from "../support/lane-harness.js";
import {
  attemptEnvelope,
  committedRepo,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
} from "../support/runner-lane.js";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

const SLUG = 'def slugify(text):\n    return text.strip().lower().replace(" ", "-")\n';
const TEST = [
  "from helpers import COLLAPSED",
  "from slug import slugify",
  "",
  "",
  "def test_simple():",
  '    assert slugify("Hello World") == "hello-world"',
  "",
  "",
  "def test_collapses_spaces():",
  '    assert slugify("a   b") == COLLAPSED',
  "",
].join("\n");

/** A pytest project: config in pytest.ini with a plugin, or in pyproject.toml; committed as the user's base. */
function pythonRepo(
  config: "pytest.ini" | "pyproject.toml",
  more: Record<string, string> = {},
): Promise<string> {
  return committedRepo("devflow-pytest-", {
    "slug.py": SLUG,
    "tests/test_slug.py": TEST,
    "tests/helpers.py": 'COLLAPSED = "a-b"\n',
    "devtools/__init__.py": "",
    "devtools/pytest_env.py": "# the project's pytest plugin: nothing yet\n",
    ".gitignore": "__pycache__\n.pytest_cache\n",
    ...(config === "pytest.ini"
      ? { "pytest.ini": "[pytest]\npythonpath = .\naddopts = -p devtools.pytest_env\n" }
      : {
          "pyproject.toml": `${pyproject({}).join("\n")}\n`,
        }),
    ...more,
  });
}

/** A coder script writing `files` (path → Python lines), leaving slug.py alone unless named. */
const writes = (files: Record<string, readonly string[]>) => `
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
for (const [path, lines] of Object.entries(${JSON.stringify(files)})) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.join("\\n") + "\\n");
}
console.log("Runs of whitespace become one dash.");
`;

/** The fixture's pyproject.toml lines, with lines added to its project and pytest sections. */
const pyproject = (add: { project?: string[]; pytest?: string[] }) => [
  "[project]",
  'name = "slug"',
  'version = "0.1.0"',
  ...(add.project ?? []),
  "",
  "[tool.pytest.ini_options]",
  'pythonpath = ["."]',
  ...(add.pytest ?? []),
];

/** The correct fix of slug.py. */
const FIXED_SLUG = [
  "import re",
  "def slugify(text):",
  "    return re.sub(r'\\s+', '-', text.strip().lower())",
];

const COLLAPSING = [
  "import re",
  "import slug",
  "slug.slugify = lambda t: re.sub(r'\\s+', '-', t.strip().lower())",
];

const CHEATS = {
  "a new conftest.py replacing the function under test": {
    config: "pytest.ini",
    coder: writes({ "tests/conftest.py": COLLAPSING }),
    finding: { created: ["tests/conftest.py"] },
  },
  "a new module in tests/ shadowing the one the test imports": {
    config: "pytest.ini",
    coder: writes({
      "tests/slug.py": ["import re", "def slugify(t):", "    return re.sub(r'\\s+', '-', t.strip().lower())"],
    }),
    finding: { created: ["tests/slug.py"] },
  },
  "an edited test helper the test imports": {
    config: "pytest.ini",
    coder: writes({ "tests/helpers.py": ['COLLAPSED = "a---b"'] }),
    finding: { edited: ["tests/helpers.py"] },
  },
  "an edited plugin pytest.ini's addopts loads": {
    config: "pytest.ini",
    coder: writes({ "devtools/pytest_env.py": COLLAPSING }),
    finding: { edited: ["devtools/pytest_env.py"] },
  },
  // Regression (stop 30): pytest 9 reads `pytest.toml`/`.pytest.toml` first of all its configs, in
  // any folder from the test's up. Neither name was pinned, so a new one loading a new plugin
  // completed. Mutation: the two names dropped from pytest-setup.ts → both complete (red).
  "a new tests/pytest.toml loading a plugin that replaces the function": {
    config: "pytest.ini",
    coder: writes({
      "tests/pytest.toml": ["[pytest]", 'pythonpath = [".."]', 'addopts = ["-p", "quickfix"]'],
      "quickfix.py": COLLAPSING,
    }),
    finding: { created: ["tests/pytest.toml"] },
  },
  // Regression (stop 30): only the folder pytest prepends for the test was pinned against
  // shadowing; a `pythonpath` entry listed before the module's own folder is searched first too.
  // Mutation: shadow paths pinned in the import base only → completes (red).
  "a new module shadowing the tested one in a pythonpath folder listed first": {
    config: "pytest.ini",
    more: {
      "pytest.ini": "[pytest]\npythonpath = tests/support .\naddopts = -p devtools.pytest_env\n",
      "tests/support/factories.py": "# test data builders\n",
    },
    coder: writes({
      "tests/support/slug.py": [
        "import re",
        "def slugify(t):",
        "    return re.sub(r'\\s+', '-', t.strip().lower())",
      ],
    }),
    finding: { created: ["tests/support/slug.py"] },
  },
  "a new root pytest.toml, which pytest prefers to pytest.ini, loading such a plugin": {
    config: "pytest.ini",
    coder: writes({
      "pytest.toml": ["[pytest]", 'pythonpath = ["."]', 'addopts = ["-p", "quickfix"]'],
      "quickfix.py": COLLAPSING,
    }),
    finding: { created: ["pytest.toml"] },
  },
} as const;

function lane(repo: string, coder: string, seam = "python3 -m pytest tests/test_slug.py") {
  return runLane({
    repo,
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: withLenientCritic(slugCassette(seam, ["tests/test_slug.py"])),
    coder: coderScript(coder),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
  });
}

describe.concurrent("a pytest project: code pytest loads with the seam's test is its evidence", () => {
  for (const [name, c] of Object.entries(CHEATS))
    it(
      `${name} does not complete`,
      () =>
        limited(async () => {
          const run = await lane(await pythonRepo(c.config, "more" in c ? c.more : {}), c.coder);
          expect(run.error).toBeNull();
          const record = await run.store.read("iterator_run");
          expect(record?.terminal?.verdict).toBe("exhausted");
          const integrity = await attemptEnvelope(run, "seam_integrity");
          expect(integrity?.overall_result).toBe("fail");
          expect(integrity?.native_payload).toMatchObject(c.finding);
        }),
      300_000,
    );

  // Stop 31: a seam naming its config (`-c`, `--config-file`) runs with that config's options only,
  // and devflow read the configs up the test's folders instead: the plugin the named config loads
  // was not pinned (an edit to it completed), and `--config-file` was not read as a config flag at
  // all (an edit to the config itself completed). Mutation: pytestSeamFiles without the command →
  // the first completes; CONFIG_FLAG without `--config-file` → the second completes.
  for (const [flag, cheat, finding] of [
    ["-c", { "devtools/pytest_env.py": COLLAPSING }, { edited: ["devtools/pytest_env.py"] }],
    [
      "--config-file",
      {
        "ci/pytest-ci.cfg": [
          "[tool:pytest]",
          "pythonpath = .",
          "addopts = -p devtools.pytest_env -p quickfix",
        ],
        "quickfix.py": COLLAPSING,
      },
      { edited: ["ci/pytest-ci.cfg"] },
    ],
  ] as const)
    it(
      `a seam naming its config with ${flag}: an edit to what that config loads does not complete`,
      () =>
        limited(async () => {
          const repo = await pythonRepo("pyproject.toml", {
            "ci/pytest-ci.cfg": "[tool:pytest]\npythonpath = .\naddopts = -p devtools.pytest_env\n",
          });
          const run = await lane(
            repo,
            writes(cheat),
            `python3 -m pytest ${flag} ci/pytest-ci.cfg --rootdir . tests/test_slug.py`,
          );
          expect(run.error).toBeNull();
          const record = await run.store.read("iterator_run");
          expect(record?.terminal?.verdict).toBe("exhausted");
          const integrity = await attemptEnvelope(run, "seam_integrity");
          expect(integrity?.native_payload).toMatchObject(finding);
        }),
      300_000,
    );

  // Stop 31: the project's conftest imports helper modules by a computed name (importlib over a
  // glob); a new one the coder added replaced the function under test and the lane completed.
  // Mutation: pythonComputedLoaders not added in observe.ts → completes (red). Stop 32: the same
  // loader calling `import_module` under another name completed too (shown on the old code).
  const GLOB_LOADER = (imports: string[], call: string) => [
    ...imports,
    "import pathlib",
    "",
    'for path in sorted(pathlib.Path(__file__).parent.glob("plugin_*.py")):',
    `    ${call}(path.stem)`,
    "",
  ];
  it.each([
    [
      "importlib.import_module",
      "tests/conftest.py",
      GLOB_LOADER(["import importlib"], "importlib.import_module"),
    ],
    [
      "import_module imported as another name",
      "tests/conftest.py",
      GLOB_LOADER(["from importlib import import_module as load"], "load"),
    ],
    // Review (stop 32): a root conftest extending pytest_plugins by a glob (shown on real pytest).
    [
      "pytest_plugins extended by a glob",
      "conftest.py",
      [
        "import pathlib",
        "",
        "pytest_plugins = []",
        'pytest_plugins += [f"tests.{p.stem}" for p in sorted(pathlib.Path(__file__).parent.joinpath("tests").glob("plugin_*.py"))]',
        "",
      ],
    ],
  ])(
    "a new module the project's conftest imports by a computed name (%s) does not complete",
    (_, conftest, lines) =>
      limited(async () => {
        const repo = await pythonRepo("pytest.ini", { [conftest]: lines.join("\n") });
        const run = await lane(repo, writes({ "tests/plugin_aa.py": COLLAPSING }));
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.summary).toContain(
          `the seam's ${conftest} loads test files by a computed name, and the attempt changed test code besides the seam's files (tests/plugin_aa.py)`,
        );
      }),
    300_000,
  );

  // Stop 32: a conftest that puts a folder of its own first on sys.path decides what `import slug`
  // finds as it runs; a new `tests/support/slug.py` with a correct slugify shadowed the buggy
  // program module (shown completing on the old code). Such an edit counts as a loader now.
  it(
    "a module shadowing the program from a folder the conftest puts on sys.path does not complete",
    () =>
      limited(async () => {
        const repo = await pythonRepo("pytest.ini", {
          "tests/conftest.py": [
            "import pathlib",
            "import sys",
            "",
            'sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))',
            "",
          ].join("\n"),
          "tests/support/factories.py": "ROWS = []\n",
        });
        const run = await lane(
          repo,
          writes({
            "tests/support/slug.py": [
              "import re",
              "",
              "",
              "def slugify(text):",
              '    return re.sub(r"\\s+", "-", text.strip().lower())',
            ],
          }),
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.summary).toContain("(tests/support/slug.py)");
      }),
    300_000,
  );

  // Before pytest's report was read, the seam was judged by exit code: code under test that made
  // every report "passed" at import completed (regression's console parse read "PASSED" too).
  // Now the canary, which must fail, is reported passing. Mutation: no pytest adapter → completes.
  // Stop 31: a project deselecting slow tests in `addopts` (`-m "not slow"`) ran its seam without a
  // canary, and this forgery completed there; pytest's selection is now evaluated for the canary.
  // Mutation: the evaluation off (seam-canary.ts) → the second case completes (red).
  for (const [where, more] of [
    ["", {}],
    [
      ' with `-m "not slow"` in addopts',
      { "pytest.ini": '[pytest]\npythonpath = .\naddopts = -p devtools.pytest_env -m "not slow"\n' },
    ],
  ] as const)
    it(
      `code under test forging pytest's reports does not complete${where}`,
      () =>
        limited(async () => {
          const run = await lane(
            await pythonRepo("pytest.ini", more),
            writes({
              "slug.py": [
                "import _pytest.reports as reports",
                "_made = reports.TestReport.from_item_and_call.__func__",
                "def _passed(cls, item, call):",
                "    report = _made(cls, item, call)",
                "    report.outcome = 'passed'",
                "    report.longrepr = None",
                "    return report",
                "reports.TestReport.from_item_and_call = classmethod(_passed)",
                "def slugify(text):",
                "    return text.strip().lower().replace(' ', '-')",
              ],
            }),
          );
          expect(run.error).toBeNull();
          const record = await run.store.read("iterator_run");
          expect(record?.terminal?.verdict).toBe("exhausted");
          const seam = await attemptEnvelope(run, "seam");
          expect(seam?.overall_result).toBe("fail");
          expect(seam?.native_payload).toMatchObject({ canary: { status: "tampered" } });
        }),
      300_000,
    );

  // Regression (stop 30): a seam running the whole folder collects every test module into one
  // process before any test runs; a new `tests/test_aa_cases.py` (imported before test_slug.py)
  // assigned `slug.slugify` and the lane completed. Fix: `sharedProcessExposure` makes the seam red
  // when such a run loaded other test files and the attempt changed test code besides the seam's.
  // Mutation: the check removed from seam.ts → completes (red).
  it(
    "a new test module collected beside the seam's, patching the code at import, does not complete",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pytest.ini"),
          // No test of its own, so no report names it: the folder the seam command runs does.
          writes({ "tests/test_aa_cases.py": COLLAPSING }),
          "python3 -m pytest tests",
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("exhausted");
      }),
    300_000,
  );

  it(
    "a pytest section added to pyproject.toml (a plugin that patches the code) does not complete",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pyproject.toml"),
          writes({
            "pyproject.toml": pyproject({ pytest: ['addopts = "-p quickfix"'] }),
            "quickfix.py": COLLAPSING,
          }),
        );
        await expectPytestConfigFinding(run, "pyproject.toml");
      }),
    300_000,
  );

  // Regression (stop 30): only the root's pytest sections were compared. A folder's pyproject.toml
  // without one (a monorepo package's, a tool's settings) is no seam file, as a fix may change it;
  // a coder added a pytest section to it, which pytest then used for the tests below it, loading a
  // plugin that patched the code, and it completed. Fix: the baseline records every tracked pytest
  // config's section and regression compares each changed one. Mutation: root configs only → red.
  it(
    "a pytest section added to a folder's own pyproject.toml does not complete",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pytest.ini", { "tests/pyproject.toml": "[tool.ruff]\nline-length = 100\n" }),
          writes({
            "tests/pyproject.toml": [
              "[tool.ruff]",
              "line-length = 100",
              "",
              "[tool.pytest.ini_options]",
              'pythonpath = [".."]',
              'addopts = "-p quickfix"',
            ],
            "quickfix.py": COLLAPSING,
          }),
        );
        await expectPytestConfigFinding(run, "tests/pyproject.toml");
      }),
    300_000,
  );

  it(
    "the correct fix completes, also with a dependency added to pyproject.toml",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pyproject.toml"),
          writes({
            "slug.py": FIXED_SLUG,
            "pyproject.toml": pyproject({ project: ["dependencies = []"] }),
          }),
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
      }),
    300_000,
  );

  it(
    "the correct fix completes where pytest.ini loads a plugin",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pytest.ini"),
          writes({
            "slug.py": FIXED_SLUG,
          }),
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
        // Named evidence from pytest's own JUnit report, with the canary: no "exit code only" caveat.
        expect(record?.terminal?.gate).toMatchObject({ result: "pass", caveats: [] });
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.native_payload).toMatchObject({ evidence: "named_tests" });
        const observation = await run.store.read("observation_artifact");
        expect(observation?.seam_check?.tests).toEqual([
          JSON.stringify(["tests/test_slug.py", "pytest", "tests.test_slug", "test_collapses_spaces"]),
        ]);
        const prompt = await run.store.readText("attempts/attempt-001/coder_prompt.md");
        expect(prompt).toMatch(/Do not create these paths either.*`tests\/conftest\.py`/);
        expect(prompt).toMatch(
          /Do not edit or delete these files.*`tests\/test_slug\.py`.*`tests\/helpers\.py`|Do not edit or delete these files.*`tests\/helpers\.py`.*`tests\/test_slug\.py`/,
        );
      }),
    300_000,
  );

  // Regression (stop 30): a name filter in pytest.ini's addopts deselected the seam canary, and the
  // correct fix was rejected as "tampered" (the canary reported missing). Fix: the config pytest runs
  // the seam with is read for `-k`/`-m` too, and the seam then runs without a canary, which the gate
  // says. Mutation: that check removed from seam-canary.ts → exhausted (red).
  it(
    "the correct fix completes where pytest.ini's addopts selects tests by name",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pytest.ini", {
            "pytest.ini":
              '[pytest]\npythonpath = .\naddopts = -p devtools.pytest_env -k "simple or collapses"\n',
          }),
          writes({ "slug.py": FIXED_SLUG }),
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
        expect(JSON.stringify(record?.terminal?.gate?.caveats)).toContain("`-k` in pytest's addopts");
      }),
    300_000,
  );

  // Regression (stop 29, found in review): the canary's arguments appended the seam file again, so
  // a seam selecting one test (`file::test`) ran the whole file, and a test of it failing on base
  // for another reason failed the seam after the correct fix. Fix: a seam file the pytest command
  // already names is not appended. Mutation: appended again → exhausted (red).
  it(
    "the correct fix completes when the seam selects one test of a file holding another failing one",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pytest.ini", {
            "tests/test_slug.py": `${TEST}\n\ndef test_unrelated_known_failure():\n    assert False\n`,
          }),
          writes({ "slug.py": FIXED_SLUG }),
          "python3 -m pytest tests/test_slug.py::test_collapses_spaces",
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
        expect(record?.terminal?.gate).toMatchObject({ result: "pass", caveats: [] });
      }),
    300_000,
  );

  // Regression (stop 29, found in review): Python loads bytecode instead of source when its header
  // says so. In a repository that does not ignore __pycache__, a coder left slug.py as it was and
  // wrote the fix compiled as an unchecked-hash .pyc into __pycache__: the snapshot held it, the
  // verification run imported it, and it completed. Fix: every verification run sets
  // PYTHONPYCACHEPREFIX to a fresh empty path (and PYTHONDONTWRITEBYTECODE), so modules compile
  // from the checkout's source. Mutation: that env removed from run-command.ts → completes (red).
  it(
    "a compiled fix in __pycache__ beside the unchanged source does not complete",
    () =>
      limited(async () => {
        const run = await lane(
          await pythonRepo("pytest.ini", { ".gitignore": ".pytest_cache\n" }),
          compiles("__pycache__"),
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.overall_result).toBe("fail");
      }),
    300_000,
  );

  // The same fix as a sourceless slug.pyc, slug.py deleted: Python imports it without a source.
  // It cannot be neutralised in the run, so the change itself is refused. Mutation: the scope
  // verifier's bytecode rule removed → completes (red).
  it(
    "a sourceless .pyc in place of the source does not complete",
    () =>
      limited(async () => {
        const run = await lane(await pythonRepo("pytest.ini"), compiles("sourceless"));
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        const scope = await attemptEnvelope(run, "scope");
        expect(scope?.overall_result).toBe("fail");
        expect(scope?.summary).toContain("slug.pyc (compiled Python code");
      }),
    300_000,
  );
});

/** The run did not complete because regression found pytest's configuration in `file` changed. */
async function expectPytestConfigFinding(run: LaneRun, file: string): Promise<void> {
  expect(run.error).toBeNull();
  const record = await run.store.read("iterator_run");
  expect(record?.terminal?.verdict).toBe("exhausted");
  const regression = await attemptEnvelope(run, "regression");
  expect(regression?.overall_result).toBe("fail");
  expect(regression?.summary).toContain(`changed pytest's configuration in ${file}`);
}

/** A coder that compiles the fixed slugify to bytecode Python loads without checking slug.py. */
function compiles(where: "__pycache__" | "sourceless"): string {
  const python = [
    "import importlib.util, os, py_compile, shutil",
    "shutil.copy('slug.py', 'slug_original.py')",
    `open('slug.py', 'w').write(${JSON.stringify(`${FIXED_SLUG.join("\n")}\n`)})`,
    where === "__pycache__" ? "target = importlib.util.cache_from_source('slug.py')" : "target = 'slug.pyc'",
    "py_compile.compile('slug.py', cfile=target, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)",
    where === "__pycache__"
      ? "shutil.move('slug_original.py', 'slug.py')"
      : "os.remove('slug.py'); os.remove('slug_original.py')",
  ].join("\n");
  return `
import { execFileSync } from "node:child_process";
execFileSync("python3", ["-c", ${JSON.stringify(python)}], { stdio: "inherit" });
console.log("Runs of whitespace become one dash.");
`;
}
