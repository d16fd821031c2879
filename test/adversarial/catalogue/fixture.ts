/**
 * The one fixture every catalogue entry runs on: the demo's csv-import library (node:test) as a
 * user's repository, plus what the behaviours need to be meaningful: a `.gitignore` (ignored
 * files are a classic smuggling route) and a second test file whose test has the same name as
 * one in test/csv-import.test.js (a broken test must not hide behind its passing twin). It is
 * built and committed once; each entry gets a byte copy (`cp -a`, `.git` included).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFixtureRepo } from "../../../src/fixtures/create-fixture-repo.js";
import type { Cassette } from "../../../src/models/cassette.js";
import { demoCassette, withLenientCritic } from "../../support/lane-harness.js";

export const CATALOGUE_TASK = "trim-emails";

/** Same title as a test in test/csv-import.test.js, different file and assertion. */
const TWIN_TESTS = `import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCsv } from "../src/csv-import.js";

test("parses rows by header", () => {
  assert.deepEqual(parseCsv("email,name\\nada@example.com,Ada\\n"), [
    { email: "ada@example.com", name: "Ada" },
  ]);
});

test("skips blank lines", () => {
  assert.equal(parseCsv("name,email\\n\\nAda,ada@example.com\\n\\n").length, 1);
});
`;

let template: string | null = null;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=The User", "-c", "user.email=user@example.com", ...args], {
    cwd,
    encoding: "utf8",
  });
}

/** The committed template repo (built on first use, then reused by every entry). */
export function catalogueTemplate(): string {
  if (template) return template;
  const dir = createFixtureRepo(
    "csv-import",
    join(mkdtempSync(join(tmpdir(), "devflow-catalogue-template-")), "repo"),
  );
  writeFileSync(join(dir, ".gitignore"), "node_modules/\n*.log\n");
  writeFileSync(join(dir, "test", "csv-format.test.js"), TWIN_TESTS);
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "ignore rules and format tests");
  template = dir;
  return dir;
}

export interface EntryDirs {
  /** The entry's temp dir: everything the entry starts runs from here (the leftover-process check looks for it). */
  base: string;
  /** The user's repository (a byte copy of the template). */
  repo: string;
  /** A dir outside the repo for markers, counters and pid files. */
  outside: string;
}

/** A fresh copy of the template for one entry. */
export function entryDirs(name: string): EntryDirs {
  const base = mkdtempSync(join(tmpdir(), `devflow-cat-${name.slice(0, 40)}-`));
  const repo = join(base, "repo");
  const outside = join(base, "outside");
  mkdirSync(outside);
  execFileSync("cp", ["-a", catalogueTemplate(), repo]);
  return { base, repo, outside };
}

/** Commits `files` to the user's repo (an entry that needs a different starting point). */
export function commitToUserRepo(repo: string, files: Record<string, string | null>, message: string): void {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) git(repo, "rm", "-q", path);
    else {
      mkdirSync(join(repo, path, ".."), { recursive: true });
      writeFileSync(join(repo, path), content);
    }
  }
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", message);
}

/**
 * The demo cassette for the catalogue: scope unrestricted (so only verification, not the scope
 * rule, can stop a cheat) and a lenient critic that says "met" to every attempt.
 */
export function catalogueCassette(): Cassette {
  const cassette = withLenientCritic(demoCassette());
  const framer = cassette.calls.framer?.at(-1);
  if (!framer || !("structured" in framer)) throw new Error("demo cassette lost its framer answer");
  const framed = framer.structured as Record<string, unknown>;
  framer.structured = {
    ...framed,
    scope_boundary: { ...(framed.scope_boundary as object), allowed_paths: [] },
  };
  return cassette;
}

/** Changes the Observer's final answer (e.g. another seam command). */
export function withSeam(patch: Record<string, unknown>) {
  return (cassette: Cassette): Cassette => {
    const final = cassette.calls.observer?.at(-1);
    if (!final || !("structured" in final)) throw new Error("cassette lost its observer answer");
    final.structured = { ...final.structured, ...patch };
    return cassette;
  };
}

/** Changes the repro test the Observer writes (its write_test_file call). */
export function withReproTest(content: string) {
  return (cassette: Cassette): Cassette => {
    for (const entry of cassette.calls.observer ?? []) {
      if (!("tool_calls" in entry)) continue;
      for (const call of entry.tool_calls ?? []) {
        if (call.name === "write_test_file") (call.args as Record<string, unknown>).content = content;
      }
    }
    return cassette;
  };
}
