/**
 * The lane harness for repos that use a real test runner (test/fixtures/runners/<runner>): the
 * fixture committed as a user's repo, and the demo cassette re-aimed at its seam. Shared by the
 * adversarial and lane suites so the setup lives in one place.
 */
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { expect } from "vitest";
import { VerifierEnvelope } from "../../src/artifacts/schemas/index.js";
import type { Cassette } from "../../src/models/cassette.js";
import { ensureRunnerInstalled, type FixtureRunner } from "../reports/runner-fixture.js";
import { coderScript, demoCassette, type LaneRun, runLane } from "./lane-harness.js";
import { writeFiles } from "./test-repo.js";

export const RUNNER_FIXTURES = fileURLToPath(new URL("../fixtures/runners/", import.meta.url));

/** The task id every runner-fixture lane run uses. */
export const SLUG_TASK = "slug-spaces";
export const SLUG_REQUEST = "slugify should collapse runs of spaces into one dash";

/** Every file under `dir`, recursively (absolute paths). */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else out.push(path);
  }
  return out;
}

export interface RunnerRepoOptions {
  /** Link the cached runner in as node_modules (default: yes, except for node:test which needs none). */
  linkRunner?: boolean;
  prefix?: string;
}

/** `files` (path → text, folders made) committed on `main` in `<new temp dir named prefix…>/repo`: a user's repo. */
export async function committedRepo(prefix: string, files: Record<string, string>): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), "repo");
  writeFiles(dir, files);
  const git = (...args: string[]) => execa("git", args, { cwd: dir });
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "fixture");
  return dir;
}

/** The slug bug in a pytest project (`pytest.ini` with `pythonpath = .`), plus `extra`, committed: a user's repo. */
const BUGGY_SLUG_PY = 'def slugify(text):\n    return text.strip().lower().replace(" ", "-")\n';
export function slugPythonRepo(extra: Record<string, string> = {}): Promise<string> {
  return committedRepo("devflow-pytest-slug-", {
    "slug.py": BUGGY_SLUG_PY,
    "tests/test_slug.py": [
      "from slug import slugify",
      "",
      "",
      "def test_collapses_spaces():",
      '    assert slugify("a   b") == "a-b"',
      "",
    ].join("\n"),
    "pytest.ini": "[pytest]\npythonpath = .\n",
    ".gitignore": "__pycache__\n.pytest_cache\n",
    ...extra,
  });
}

/** The runner fixture as a user's repo: committed, node_modules ignored and linked from the runner cache. */
export async function runnerRepo(runner: FixtureRunner, options: RunnerRepoOptions = {}): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), options.prefix ?? `devflow-runner-${runner}-`)), "repo");
  const source = join(RUNNER_FIXTURES, runner);
  for (const path of await listFiles(source)) {
    const target = join(dir, relative(source, path));
    await mkdir(join(target, ".."), { recursive: true });
    await writeFile(target, await readFile(path));
  }
  await writeFile(join(dir, ".gitignore"), "node_modules\n");
  const git = (...args: string[]) => execa("git", args, { cwd: dir });
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "fixture");
  if (runner !== "node-test" && options.linkRunner !== false)
    await symlink(await ensureRunnerInstalled(runner), join(dir, "node_modules"));
  return dir;
}

/**
 * The demo cassette re-aimed at the slug fixture: the seam is an existing test file, scope
 * unrestricted (a lenient task, so only the evidence can stop a cheat).
 */
export function slugCassette(
  seamCommand: string,
  seamFiles: string[] = ["test/slug.test.js"],
  /** The Framer's scope (`allowed_paths`); none by default. */
  allowedPaths: string[] = [],
): Cassette {
  const cassette = demoCassette();
  const framer = cassette.calls.framer?.at(-1);
  const observer = cassette.calls.observer?.at(-1);
  if (!framer || !("structured" in framer) || !observer || !("structured" in observer))
    throw new Error("demo cassette lost its framer/observer answers");
  const framed = framer.structured as Record<string, unknown>;
  framer.structured = {
    ...framed,
    scope_boundary: { ...(framed.scope_boundary as object), allowed_paths: allowedPaths },
  };
  observer.structured = {
    ...observer.structured,
    status: "confirmed",
    failing_seam: {
      description: "slugify collapses repeated spaces",
      command: seamCommand,
      files: seamFiles,
    },
  };
  // The Observer's tool calls (writing the csv repro) do not belong to this repo: only its answer stays.
  cassette.calls.observer = [observer];
  return cassette;
}

/** The seam command per runner: the seam's test file, run by the repo's own runner. */
export const SLUG_SEAM: Record<FixtureRunner, string> = {
  "node-test": "node --test test/slug.test.js",
  mocha: "npx mocha test/slug.test.js",
  jest: "npx jest test/slug.test.js",
  vitest: "npx vitest run test/slug.test.js",
  tape: "npx tape test/slug.test.js",
};

export interface SlugLaneOptions {
  seam?: string;
  attempts?: number;
  repo?: string;
}

/** Runs the real iterate lane on a fresh runner fixture with a `command:` coder script. */
export async function slugLane(
  runner: FixtureRunner,
  coder: string,
  opts: SlugLaneOptions = {},
): Promise<LaneRun> {
  const repo = opts.repo ?? (await runnerRepo(runner));
  return runLane({
    repo,
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: slugCassette(opts.seam ?? SLUG_SEAM[runner]),
    coder: coderScript(coder),
    lane: { maxJudgeAttempts: opts.attempts ?? 1, commandTimeoutMs: 120_000 },
  });
}

/** A `command:` coder script writing `files` (path → lines) and, when told, the correct fix of src/slug.js. */
export const writingCoder = (files: Record<string, string[]>, fix = false): string => `
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
for (const [path, lines] of Object.entries(${JSON.stringify(files)})) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.join("\\n") + "\\n");
}
if (${fix}) {
  const f = "src/slug.js";
  writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
}
console.log("Runs of whitespace become one dash.");
`;

/** The `runner` fixture with `files` (path → text, folders made) added and committed: a user's repo. */
export async function runnerRepoWith(runner: FixtureRunner, files: Record<string, string>): Promise<string> {
  if (runner !== "node-test") await ensureRunnerInstalled(runner);
  const repo = await runnerRepo(runner);
  writeFiles(repo, files);
  await execa("git", ["add", "-A"], { cwd: repo });
  await execa("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "seam"], {
    cwd: repo,
  });
  return repo;
}

/** The lane on `repo` with the seam `seam` (its files `seamFiles`), one attempt, a `command:` coder script. */
export async function seamLane(
  repo: string,
  seam: string,
  seamFiles: string[],
  script: string,
  allowedPaths: string[] = [],
): Promise<LaneRun> {
  return runLane({
    repo,
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: slugCassette(seam, seamFiles, allowedPaths),
    coder: coderScript(script),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
  });
}

/** One verifier envelope of an attempt (attempt-001 unless told). */
export function attemptEnvelope(run: LaneRun, name: string, attempt = "attempt-001") {
  return run.store.readAttemptJson(attempt, `verifiers/${name}.json`, VerifierEnvelope);
}

/**
 * A mocha seam that checks slugify against every case file of `test/cases/`, a folder whose name is
 * built at run time (the opened-files attacks, ADR 0072).
 */
export const TABLE_SEAM = [
  'const assert = require("node:assert");',
  'const { readdirSync, readFileSync } = require("node:fs");',
  'const { join } = require("node:path");',
  'const { slugify } = require("../src/slug.js");',
  // The folder's name is built at run time: no literal names it, so nothing pins its files.
  'const dir = join(__dirname, ["ca", "ses"].join(""));',
  'describe("slug cases", () => {',
  '  it("matches every case file", () => {',
  "    for (const f of readdirSync(dir).sort()) {",
  '      const { input, want } = JSON.parse(readFileSync(join(dir, f), "utf8"));',
  "      assert.strictEqual(slugify(input), want, f);",
  "    }",
  "  });",
  "});",
  "",
].join("\n");

/**
 * An attack on a runner fixture was refused: the lane did not complete and `verifier`'s envelope
 * did not pass (`result` narrows that to one outcome). When the lane did complete, the committed
 * `file` is checked first to hold `broken`, so a failure here is a false completion of that change.
 */
export async function expectAttackRefused(
  run: LaneRun,
  check: { verifier: string; file: string; broken: string; result?: "fail" },
): Promise<void> {
  expect(run.error).toBeNull();
  const record = await run.store.read("iterator_run");
  const envelope = await attemptEnvelope(run, check.verifier);
  if (record?.terminal?.verdict === "completed") {
    const { stdout } = await execa("git", ["show", `devflow/${SLUG_TASK}:${check.file}`], { cwd: run.repo });
    expect(stdout).toContain(check.broken);
  }
  expect(
    record?.terminal?.verdict,
    `${record?.terminal?.reason}\n${check.verifier}: ${envelope?.summary}`,
  ).not.toBe("completed");
  if (check.result) expect(envelope?.overall_result, envelope?.summary).toBe(check.result);
  else expect(envelope?.overall_result, envelope?.summary).not.toBe("pass");
}

/**
 * Coder code the runner fixtures' attacks start with: `edit(file, from, to)` (throws when `from`
 * is missing), the seam's fix (slugify collapses runs of whitespace), then `clamp` as clamp's
 * return line: by default its input, so `math > clamp > works` really fails.
 */
export const fixSlugBreakClamp = (clamp = "return value;"): string => `
import { readFileSync, writeFileSync } from "node:fs";
const edit = (f, from, to) => {
  const before = readFileSync(f, "utf8");
  if (!before.includes(from)) throw new Error(f + ": " + from + " not found");
  writeFileSync(f, before.replace(from, to));
};
edit("src/slug.js", ".replace(/ /g,", ".replace(/\\\\s+/g,");
edit("src/math.js", "return Math.min(Math.max(value, low), high);", ${JSON.stringify(clamp)});
`;
