import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { cli } from "../support/cli.js";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  demoCassette,
  tempDir,
  withObserverAnswer,
  writeCassette,
} from "../support/lane-harness.js";
import { errorAnswer, startOpenAIServer } from "../support/openai-server.js";

const replay = () => ["--replay", writeCassette(demoCassette())];
/** `devflow iterate "<the demo request>" -r <repo> ...rest`. */
const iterateDemo = (repo: string, ...rest: string[]) => cli("iterate", DEMO_REQUEST, "-r", repo, ...rest);

describe("devflow iterate: bad input gets a clear error and exit code 2", () => {
  beforeEach(() => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("rejects an unknown flag", async () => {
    const r = await cli("iterate", "fix it", "--frobnicate");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option '--frobnicate'/);
  });

  it("rejects an empty request", async () => {
    const r = await cli("iterate", "   ", "-r", createFixtureRepo("csv-import"), ...replay());
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/request is empty/);
  });

  it("rejects a path that is not a git repository", async () => {
    const dir = tempDir();
    const r = await cli("iterate", "fix it", "-r", dir, "--coder", "command:true", ...replay());
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not a git repository/);
  });

  it("rejects a repository with no commits", async () => {
    const dir = tempDir();
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const r = await cli("iterate", "fix it", "-r", dir, "--coder", "command:true", ...replay());
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no commits/);
  });

  it("rejects an unknown coder, listing the known ones", async () => {
    const r = await cli(
      "iterate",
      "fix it",
      "-r",
      createFixtureRepo("csv-import"),
      "--coder",
      "nope",
      ...replay(),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/nope/);
    expect(r.err).toMatch(/command:<shell>/);
  });

  it("reports a missing coder binary before asking for a model key", async () => {
    const repo = createFixtureRepo("csv-import");
    vi.stubEnv("PATH", "/nonexistent-bin-dir");
    const r = await cli("iterate", "fix it", "-r", repo, "--coder", "junie");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/coder "junie" is not installed/);
    expect(r.err).toMatch(/Install Junie/);
    // The model configuration (no key set here) is only checked after the coder.
    expect(r.err).not.toMatch(/OPENAI_BASE_URL/);
  });

  it("live mode without OPENAI_API_KEY says what to set, before any work", async () => {
    const repo = createFixtureRepo("csv-import");
    const r = await cli("iterate", "fix it", "-r", repo, "--coder", "command:true");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/OPENAI_API_KEY/);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(() =>
      execFileSync("git", ["rev-parse", "--verify", "devflow/fix-it"], { cwd: repo, stdio: "ignore" }),
    ).toThrow();
  });

  it("rejects a missing cassette and a malformed one", async () => {
    const repo = createFixtureRepo("csv-import");
    const missing = await cli(
      "iterate",
      "fix it",
      "-r",
      repo,
      "--coder",
      "command:true",
      "--replay",
      "/no/such.json",
    );
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cassette \/no\/such.json: file not found/);
    const bad = join(tempDir(), "bad.json");
    writeFileSync(bad, "{ not json");
    const malformed = await cli("iterate", "fix it", "-r", repo, "--coder", "command:true", "--replay", bad);
    expect(malformed.code).toBe(2);
    expect(malformed.err).toMatch(/not valid JSON/);
  });

  it("rejects --resume of an unknown task, naming the known ones", async () => {
    const r = await cli(
      "iterate",
      "--resume",
      "--task-id",
      "ghost",
      "-r",
      createFixtureRepo("csv-import"),
      "--coder",
      "command:true",
      ...replay(),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no task "ghost" to resume/);
  });

  it("refuses an existing task id without --resume", async () => {
    const repo = createFixtureRepo("csv-import");
    const coder = coderScript(CORRECT_FIX);
    const first = await iterateDemo(repo, "--task-id", "t1", "--coder", coder, ...replay());
    expect(first.code, first.err).toBe(0);
    const again = await iterateDemo(repo, "--task-id", "t1", "--coder", coder, ...replay());
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/task "t1" already exists.*--resume/);
  });

  it("rejects a non-numeric --max-iterations", async () => {
    const r = await cli("iterate", "fix it", "-n", "many");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--max-iterations must be a whole number/);
  });
});

describe("devflow iterate: verdicts map to documented exit codes", () => {
  it("a seam command that does not exist is not confirmed: exit 3 with the question", async () => {
    const cassette = withObserverAnswer({
      failing_seam: { description: "x", command: "no-such-tool --check", files: [] },
    });
    const r = await iterateDemo(
      createFixtureRepo("csv-import"),
      "--coder",
      coderScript(CORRECT_FIX),
      "--replay",
      writeCassette(cassette),
    );
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/verdict\s+needs_more_context/);
    expect(r.err).toMatch(/no-such-tool --check/);
  });

  it("a regression command that does not exist blocks before coding: exit 3", async () => {
    const r = await iterateDemo(
      createFixtureRepo("csv-import"),
      "--coder",
      coderScript(CORRECT_FIX),
      "--test-cmd",
      "no-such-runner",
      ...replay(),
    );
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/verdict\s+blocked/);
    expect(r.err).toMatch(/no-such-runner/);
  });

  it("a promotion to idea writes promotion_handoff.json and exits 5", async () => {
    const cassette = withObserverAnswer({
      verdict: "promote_idea",
      summary: "This is a new import pipeline, not a fix.",
    });
    const repo = createFixtureRepo("csv-import");
    const r = await iterateDemo(
      repo,
      "--task-id",
      "big",
      "--coder",
      "command:true",
      "--replay",
      writeCassette(cassette),
      "--json",
    );
    expect(r.code).toBe(5);
    const lines = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const result = lines.at(-1);
    expect(result.type).toBe("result");
    expect(result.terminal.verdict).toBe("promoted");
    expect(lines.filter((l) => l.type === "event").length).toBeGreaterThan(3);
    const { openTaskStore } = await import("../../src/home/index.js");
    const store = openTaskStore(repo, "big");
    const handoff = await store.read("promotion_handoff");
    expect(handoff?.target_lane).toBe("idea");
    expect(handoff?.source_refs.task_artifact.revision).toBe(1);
    expect(handoff?.source_refs.observation_artifact?.revision).toBe(1);
    const run = await store.read("iterator_run");
    expect(run?.run_state).toBe("promoted");
    expect(handoff?.source_refs.iterator_run.revision).toBe(run?.revision);
  });

  it("malformed model output gets one repair round, then a clear error naming the role", async () => {
    const bad = { structured: { title: 42 } };
    const once = demoCassette();
    const framer = once.calls.framer?.[0];
    if (!framer) throw new Error("demo cassette lost its framer answer");
    once.calls.framer = [bad, framer];
    const repaired = await iterateDemo(
      createFixtureRepo("csv-import"),
      "--coder",
      coderScript(CORRECT_FIX),
      "--replay",
      writeCassette(once),
    );
    expect(repaired.code, repaired.err).toBe(0);

    const twice = demoCassette();
    twice.calls.framer = [bad, bad];
    const failed = await iterateDemo(
      createFixtureRepo("csv-import"),
      "--coder",
      coderScript(CORRECT_FIX),
      "--replay",
      writeCassette(twice),
    );
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/framer/);
    expect(failed.err).toMatch(/repair round/);
    expect(failed.err).toMatch(/--resume/);
  });
});

describe("concurrent runs on one repo", () => {
  it("two tasks on the same repo at once both complete on their own branches", async () => {
    const repo = createFixtureRepo("csv-import");
    const coder = coderScript(CORRECT_FIX);
    const [a, b] = await Promise.all([
      iterateDemo(repo, "--task-id", "one", "--coder", coder, ...replay()),
      iterateDemo(repo, "--task-id", "two", "--coder", coder, ...replay()),
    ]);
    expect([a.code, b.code], a.err + b.err).toEqual([0, 0]);
    const branches = execFileSync("git", ["branch", "--list", "devflow/*"], { cwd: repo, encoding: "utf8" });
    expect(branches).toMatch(/devflow\/one/);
    expect(branches).toMatch(/devflow\/two/);
  });
});

describe("devflow iterate: more exit codes", () => {
  it("attempts exhausted exits 4 and names the verdict", async () => {
    const r = await iterateDemo(
      createFixtureRepo("csv-import"),
      "--coder",
      coderScript('console.log("nothing to do");'),
      "-n",
      "1",
      ...replay(),
    );
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/verdict\s+exhausted/);
  });

  it("a model endpoint answering 401 is a configuration error: exit 2 with what to fix", async () => {
    const server = await startOpenAIServer([errorAnswer(401, "Incorrect API key provided")]);
    vi.stubEnv("OPENAI_API_KEY", "sk-test-wrong-0000");
    vi.stubEnv("OPENAI_BASE_URL", server.url);
    try {
      const r = await iterateDemo(createFixtureRepo("csv-import"), "--coder", "command:true");
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/401|authentication/i);
      expect(r.err).not.toContain("sk-test-wrong-0000");
    } finally {
      vi.unstubAllEnvs();
      await server.close();
    }
  });
});
