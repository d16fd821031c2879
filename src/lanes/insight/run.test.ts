import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { replayGateway, useScratch } from "../../../test/chat/support/intake-fixtures.js";
import { parseArtifact } from "../../artifacts/validate.js";
import type { CassetteEntry } from "../../models/cassette.js";
import { runInsight } from "./run.js";

const scratch = useScratch();
const fixture = scratch.repo;
const gatewayFor = (insight: CassetteEntry[]) => replayGateway({ insight });

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** Everything that would show a write: files outside .devflow, the index, refs, HEAD, worktrees, stashes. */
function repoState(repo: string) {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(repo, path);
      if (rel === ".devflow" || rel === ".git") continue;
      if (statSync(path).isDirectory()) walk(path);
      else files[rel] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  walk(repo);
  return {
    files,
    index: createHash("sha256")
      .update(readFileSync(join(repo, ".git", "index")))
      .digest("hex"),
    status: git(repo, "status", "--porcelain=v1", "--untracked-files=all"),
    head: git(repo, "rev-parse", "HEAD"),
    refs: git(repo, "for-each-ref"),
    worktrees: git(repo, "worktree", "list", "--porcelain"),
    stashes: git(repo, "stash", "list"),
  };
}

const ANSWER = {
  answer: "`validateRow` tests the raw cell against `EMAIL` (src/csv-import.js:16), before any trimming.",
  references: [
    { path: "src/csv-import.js", line: 16 },
    { path: "src/csv-import.js", line: 1 },
    { path: "src/does-not-exist.js", line: 3 },
    { path: "src/csv-import.js", line: 9999 },
    { path: "../outside.txt", line: null },
  ],
};

describe("runInsight", () => {
  it("never writes: a model that asks to write files and run commands changes nothing in the repo", async () => {
    const repo = fixture();
    const before = repoState(repo);
    const gateway = gatewayFor([
      {
        content: "Let me fix it while I am here.",
        tool_calls: [
          { name: "write_test_file", args: { path: "test/new.test.js", content: "x" } },
          { name: "write_file", args: { path: "src/csv-import.js", content: "" } },
          { name: "run_command", args: { command: "git commit --allow-empty -m hacked && touch hacked" } },
        ],
      },
      { content: "Searching instead.", tool_calls: [{ name: "search", args: { pattern: "EMAIL.test" } }] },
      { content: "", tool_calls: [{ name: "read_file", args: { path: "src/csv-import.js" } }] },
      { structured: ANSWER },
    ]);

    const { result } = await runInsight({
      gateway,
      repoRoot: repo,
      question: "Why are emails with spaces rejected?",
      priorTurns: [],
    });

    expect(repoState(repo)).toEqual(before);
    expect(existsSync(join(repo, "hacked"))).toBe(false);
    expect(result.answer).toBe(ANSWER.answer);
    expect(relative(repo, result.artifactPath)).toBe(
      join(".devflow", "insight", result.id, "insight_answer.json"),
    );
  });

  it("binds only the read-only tools", async () => {
    const repo = fixture();
    const gateway = gatewayFor([{ structured: ANSWER }]);
    await runInsight({ gateway, repoRoot: repo, question: "What does parseCsv do?", priorTurns: [] });
    const model = gateway.chatModel("insight");
    const bound = "boundTools" in model && Array.isArray(model.boundTools) ? model.boundTools : [];
    const names = bound
      .flat()
      .map((t: { name?: string; function?: { name?: string } }) => t.name ?? t.function?.name);
    expect(names).toEqual(expect.arrayContaining(["list_files", "read_file", "search", "insight_answer"]));
    expect(names).not.toEqual(expect.arrayContaining(["run_command"]));
    expect(names.filter((n) => /write|edit|run/.test(String(n)))).toEqual([]);
  });

  it("keeps only references that exist in the repo and records the rest as unverified", async () => {
    const repo = fixture();
    const gateway = gatewayFor([{ structured: ANSWER }]);
    const { result } = await runInsight({
      gateway,
      repoRoot: repo,
      question: "Why are emails with spaces rejected?",
      priorTurns: [{ role: "user", content: "we import contacts from CSV" }],
    });
    expect(result.references).toEqual([
      { path: "src/csv-import.js", line: 16 },
      { path: "src/csv-import.js", line: 1 },
    ]);
    const artifact = parseArtifact("insight_answer", JSON.parse(readFileSync(result.artifactPath, "utf8")));
    expect(artifact.unverified_references.map((r) => [r.path, r.problem])).toEqual([
      ["src/does-not-exist.js", "not a file inside the repository"],
      ["src/csv-import.js", "line 9999 is past the end of the file (30 lines)"],
      ["../outside.txt", "not a file inside the repository"],
    ]);
    expect(artifact.question).toBe("Why are emails with spaces rejected?");
    expect(artifact.prior_turns).toEqual([{ role: "user", content: "we import contacts from CSV" }]);
    expect(artifact.head_commit).toBe(git(repo, "rev-parse", "HEAD").trim());
    expect(artifact.stopped_by).toBeNull();
  });

  it("says honestly that it stopped when the model never answers", async () => {
    const repo = fixture();
    const gateway = gatewayFor([{ content: "I think it is fine." }]);
    const { result } = await runInsight({
      gateway,
      repoRoot: repo,
      question: "Is parseCsv safe?",
      priorTurns: [],
    });
    expect(result.answer).toMatch(/stopped before reaching an answer/);
    expect(result.references).toEqual([]);
    const artifact = parseArtifact("insight_answer", JSON.parse(readFileSync(result.artifactPath, "utf8")));
    expect(artifact.stopped_by).toBe("no_answer");
  });

  it("refuses an empty question and a path that is not a git repository", async () => {
    const gateway = gatewayFor([]);
    await expect(
      runInsight({ gateway, repoRoot: fixture(), question: "  ", priorTurns: [] }),
    ).rejects.toThrow(/question is empty/);
    const notRepo = join(fixture(), "src");
    rmSync(join(notRepo, "..", ".git"), { recursive: true, force: true });
    await expect(
      runInsight({ gateway, repoRoot: notRepo, question: "why?", priorTurns: [] }),
    ).rejects.toThrow(/not a git repository/);
  });
});
