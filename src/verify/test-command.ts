import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface DetectedTestCommand {
  /** Shell command line, run in the worktree root. */
  command: string;
  /** Which file the command was inferred from, for the user ("package.json scripts.test"). */
  source: string;
}

/**
 * Infers the project's test command from its files, first match wins. Returns null when nothing
 * fits; the user then passes --test-cmd. Each command asks for per-test output where cheap, so
 * the regression verifier can compare test by test rather than by exit code alone.
 */
export function detectTestCommand(worktree: string): DetectedTestCommand | null {
  return (
    fromPackageJson(worktree) ??
    fromMakefile(worktree) ??
    fromPython(worktree) ??
    fromGo(worktree) ??
    fromCargo(worktree)
  );
}

function fromPackageJson(dir: string): DetectedTestCommand | null {
  const text = read(join(dir, "package.json"));
  if (text === null) return null;
  let test: unknown;
  try {
    const pkg: unknown = JSON.parse(text);
    const scripts = isRecord(pkg) ? pkg.scripts : undefined;
    test = isRecord(scripts) ? scripts.test : undefined;
  } catch {
    return null;
  }
  if (typeof test !== "string" || test.trim() === "") return null;
  // `npm init` writes a test script that only fails; it is no test suite.
  if (/no test specified/i.test(test)) return null;
  return { command: "npm test --silent", source: "package.json scripts.test" };
}

function fromMakefile(dir: string): DetectedTestCommand | null {
  for (const name of ["Makefile", "makefile", "GNUmakefile"]) {
    const text = read(join(dir, name));
    if (text !== null && /^test\s*:(?!=)/m.test(text))
      return { command: "make test", source: `${name} target "test"` };
  }
  return null;
}

function fromPython(dir: string): DetectedTestCommand | null {
  const command = "python3 -m pytest -q -rA";
  if (existsSync(join(dir, "pytest.ini"))) return { command, source: "pytest.ini" };
  // A config section or a (dev) dependency naming pytest both mean "this project runs pytest".
  for (const file of ["pyproject.toml", "setup.cfg", "tox.ini"]) {
    const text = read(join(dir, file));
    if (text !== null && /pytest/.test(text)) return { command, source: `${file} mentions pytest` };
  }
  const testsDir = join(dir, "tests");
  if (listing(testsDir).some((f) => f.endsWith(".py"))) return { command, source: "tests/*.py" };
  if (listing(dir).some((f) => /^test_.*\.py$|_test\.py$/.test(f)))
    return { command, source: "test_*.py files" };
  return null;
}

function fromGo(dir: string): DetectedTestCommand | null {
  return existsSync(join(dir, "go.mod")) ? { command: "go test ./... -v", source: "go.mod" } : null;
}

function fromCargo(dir: string): DetectedTestCommand | null {
  return existsSync(join(dir, "Cargo.toml")) ? { command: "cargo test", source: "Cargo.toml" } : null;
}

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
