import { posix } from "node:path";

/**
 * The files a task-runner program reads its recipes from: what `make test`, `tox` or `nox` run is
 * written there, not in the test command.
 */
const RECIPE_FILES: Readonly<Record<string, RegExp>> = {
  make: /(?:^|\/)(?:GNUmakefile|makefile|Makefile|[^/]*\.mk)$/,
  tox: /(?:^|\/)tox\.(?:ini|toml)$/,
  nox: /(?:^|\/)noxfile\.py$/,
  just: /(?:^|\/)\.?[Jj]ustfile$/,
  invoke: /(?:^|\/)tasks\.py$/,
};

/** Programs that run the script named after them (`bash ci/test.sh`, `python3 run_tests.py`). */
const INTERPRETERS = new Set(["sh", "bash", "dash", "zsh", "node", "python", "python3", "ruby", "perl"]);

/**
 * Whether a repository file says what the test command runs (review, stop 41): the recipe file of a
 * task runner the command starts (a Makefile for `make test`, `tox.ini`, `noxfile.py`, a justfile),
 * or a script the command runs (`./scripts/test.sh`, `bash ci/test.sh`). Regression runs the
 * attempt's copy of such a file; changed, the suite no longer runs as on base (`make test` with a
 * rewritten recipe printed passing lines while a test was broken). Test files a command only names
 * as arguments are not recipes: the suite's tests may change (ADR 0019).
 */
export function saysWhatTheTestCommandRuns(command: string): (file: string) => boolean {
  const patterns: RegExp[] = [];
  const scripts = new Set<string>();
  for (const segment of command.split(/&&|\|\||[;|]/)) {
    const words = segment
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/^["']|["']$/g, ""))
      .filter((w) => w !== "" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    const [program = "", ...rest] = words;
    const name = posix.basename(program);
    // `python3 -m tox` runs tox as well as `tox` does.
    const runner = name.startsWith("python") && rest[0] === "-m" ? (rest[1] ?? "") : name;
    const recipe = RECIPE_FILES[runner];
    if (recipe) patterns.push(recipe);
    if (program.includes("/")) scripts.add(repoPath(program));
    // `node --test a.test.js` names test files, not a script.
    const script =
      INTERPRETERS.has(name) && runner === name && !rest.includes("--test")
        ? rest.find((w) => !w.startsWith("-"))
        : undefined;
    if (script !== undefined) scripts.add(repoPath(script));
  }
  return (file) => scripts.has(file) || patterns.some((re) => re.test(file));
}

function repoPath(word: string): string {
  return posix.normalize(word);
}
