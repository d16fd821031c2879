// Bug pinned (issue 11, "JSON mode"): `--json` ended stdout at an error event with no result line on
// failure (exit 1/2), its result line was camelCase (taskId, artifactDir) while every artifact is
// snake_case, event lines carried "type": "event" that schemas/event.schema.json forbids, and no
// schema described the result line. Fix: src/cli/json-output.ts builds every line; runCli writes an
// error result line for usage errors, DevflowErrors and unexpected errors; the lines are the zod
// schemas EventLine/ResultLine exported to schemas/. Each run below is the real bin in a process.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { runDevflow } from "../faults/cli-process.js";
import { jsonStdoutProblems, resultOf } from "../support/json-lines.js";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  demoCassette,
  needsAnswersCassette,
  tempDir,
  writeCassette,
} from "../support/lane-harness.js";

/**
 * The built CLI with no model endpoint and no tracing configured (runDevflow passes only PATH, HOME
 * and this), and the empty user config dir every test worker has.
 */
async function devflowBin(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const run = await runDevflow(args, { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? "" });
  return { code: run.code, out: run.stdout, err: run.stderr };
}

describe("--json: event lines, then exactly one snake_case result line that fits schemas/", () => {
  it("a completed run (exit 0)", async () => {
    const repo = createFixtureRepo("csv-import");
    const run = await devflowBin(
      "iterate",
      DEMO_REQUEST,
      "-r",
      repo,
      "--coder",
      coderScript(CORRECT_FIX),
      "--replay",
      writeCassette(demoCassette()),
      "--json",
    );
    expect(jsonStdoutProblems(run.out), run.err).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.out.split("\n").filter((l) => l.startsWith('{"type":"event"')).length).toBeGreaterThan(5);
    expect(resultOf(run.out)).toMatchObject({
      type: "result",
      command: "iterate",
      exit_code: 0,
      error: null,
      terminal: { verdict: "completed" },
      attempts: 1,
    });
    expect(run.out).not.toMatch(/"(taskId|artifactDir)"/);
  }, 240_000);

  it("a run that stops with questions (needs_more_context, exit 3)", async () => {
    const repo = createFixtureRepo("csv-import");
    const cassette = needsAnswersCassette("Which field has the spaces?");
    const run = await devflowBin(
      "iterate",
      DEMO_REQUEST,
      "-r",
      repo,
      "--coder",
      "command:true",
      "--replay",
      writeCassette(cassette),
      "--json",
    );
    expect(jsonStdoutProblems(run.out), run.err).toEqual([]);
    expect(run.code).toBe(3);
    expect(resultOf(run.out)).toMatchObject({
      exit_code: 3,
      error: null,
      terminal: { verdict: "needs_more_context", questions: ["Which field has the spaces?"] },
    });
  }, 240_000);

  it("a run that fails mid-way (exit 1): the error's code, category and message", async () => {
    const repo = createFixtureRepo("csv-import");
    const run = await devflowBin(
      "iterate",
      DEMO_REQUEST,
      "-r",
      repo,
      "--coder",
      "command:true",
      "--replay",
      writeCassette({ version: 1, calls: {} }),
      "--json",
    );
    expect(jsonStdoutProblems(run.out), run.err).toEqual([]);
    expect(run.code).toBe(1);
    expect(resultOf(run.out)).toMatchObject({
      command: "iterate",
      exit_code: 1,
      error: { code: "REPLAY_EXHAUSTED", category: "model_call" },
    });
    expect(String((resultOf(run.out).error as { message: string }).message)).toMatch(/role framer call #1/);
  }, 240_000);

  it("a configuration error before any work (exit 2)", async () => {
    const run = await devflowBin(
      "iterate",
      "fix it",
      "-r",
      createFixtureRepo("csv-import"),
      "--coder",
      "command:true",
      "--replay",
      join(tempDir(), "missing.json"),
      "--json",
    );
    expect(jsonStdoutProblems(run.out), run.err).toEqual([]);
    expect(run.code).toBe(2);
    expect(resultOf(run.out)).toMatchObject({
      exit_code: 2,
      error: { code: "CASSETTE_INVALID", category: "config" },
    });
  }, 120_000);

  it("a usage error on the command line (exit 2), and route's decision", async () => {
    const usage = await devflowBin("iterate", "fix it", "--json", "--frobnicate");
    expect(jsonStdoutProblems(usage.out), usage.err).toEqual([]);
    expect(usage.code).toBe(2);
    expect(resultOf(usage.out)).toMatchObject({
      command: "iterate",
      exit_code: 2,
      error: { code: "USAGE", category: "usage", message: "unknown option '--frobnicate'" },
    });

    const cassette = writeCassette({
      version: 1,
      calls: { router: [{ structured: { route: "neither", rationale: "small talk", confidence: 0.8 } }] },
    });
    const routed = await devflowBin("route", "--json", "--replay", cassette, "hello");
    expect(jsonStdoutProblems(routed.out), routed.err).toEqual([]);
    expect(resultOf(routed.out)).toMatchObject({
      command: "route",
      exit_code: 0,
      decision: { route: "neither", rationale: "small talk", confidence: 0.8 },
    });
  }, 120_000);
});
