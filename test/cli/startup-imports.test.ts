/**
 * Regression: every command cost ~5 s of CPU before doing anything (issue 11). Cause: program.ts
 * imported every command eagerly, and each command imported its lane, the model gateway and the
 * agents at the top, so `devflow --help` loaded ~1,330 modules (langgraph, langchain, openai,
 * langsmith). Fix: command files register their options with light imports only and load the heavy
 * module inside the action (ADR 0042). This runs the built bin (dist/) with a loader hook that records
 * every module resolved, for the paths that must stay light: help, version and usage errors.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";

const RECORDER = join(import.meta.dirname, "support", "record-imports.mjs");
const HEAVY =
  /\/node_modules\/(@langchain\/[^/]+|langchain|openai|langsmith|execa|simple-git|better-sqlite3)\//;
const LANE = /\/dist\/src\/(lanes|agents|models\/create-gateway|workspace|coders\/index)/;

const dir = mkdtempSync(join(tmpdir(), "devflow-startup-imports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function modulesLoadedBy(args: string[]): { status: number | null; stderr: string; modules: string[] } {
  const record = join(dir, `${args.join("_").replace(/\W/g, "")}.txt`);
  const run = spawnSync(process.execPath, ["--import", RECORDER, DEVFLOW_BIN, ...args], {
    env: { ...process.env, DEVFLOW_RECORD_IMPORTS: record },
    encoding: "utf8",
  });
  const modules = readFileSync(record, "utf8").split("\n").filter(Boolean);
  return { status: run.status, stderr: run.stderr, modules };
}

describe("devflow start-up loads no heavy module", () => {
  it.each([
    [["--help"], 0],
    [["--version"], 0],
    [["iterate", "--help"], 0],
    [["route", "--help"], 0],
    [["chat", "--help"], 0],
    [["doctor", "--help"], 0],
    [["playground", "--help"], 0],
    [["iterate", "--no-such-flag"], 2],
    [["no-such-command"], 2],
  ])("devflow %j", (args, code) => {
    const { status, stderr, modules } = modulesLoadedBy(args);
    expect(status, stderr).toBe(code);
    // The recorder saw the CLI itself, so an empty list cannot pass for a light one.
    expect(modules.some((m) => m.endsWith("/dist/src/cli/program.js"))).toBe(true);
    expect(modules.filter((m) => HEAVY.test(m) || LANE.test(m))).toEqual([]);
  });
});

/**
 * Regression: `devflow route --replay` cost 0.86–1.04 s of CPU, over the 1 s target (issue 11).
 * Cause: createModelGateway imported the live model statically, so a replayed route loaded
 * @langchain/openai and the openai SDK (~700 modules) it never called. Fix: route and chat build
 * their gateway with openModelGateway (src/models/gateway.ts), which imports the live model only
 * for live and record mode.
 */
describe("a replayed route loads no live model", () => {
  const LIVE_MODEL =
    /\/node_modules\/(@langchain\/openai|openai)\/|\/dist\/src\/models\/(live-chat-model|create-gateway)\.js$/;
  const CASSETTE = join(
    import.meta.dirname,
    "..",
    "..",
    "scenarios",
    "cassettes",
    "devin_iterate_routing.json",
  );

  it("devflow route --replay <cassette> answers without loading @langchain/openai", () => {
    const { status, stderr, modules } = modulesLoadedBy([
      "route",
      "--replay",
      CASSETTE,
      "fix the csv import",
    ]);
    expect(status, stderr).toBe(0);
    // The router really ran on the replayed model: the gateway and the replay model were loaded.
    expect(modules.some((m) => m.endsWith("/dist/src/models/replay-chat-model.js"))).toBe(true);
    expect(modules.filter((m) => LIVE_MODEL.test(m))).toEqual([]);
  });

  /**
   * Regression: an iterate (or chat) task that only replays still loaded the live model (issue 11,
   * left by the route fix). Cause: the iterate lane's runner (run.ts) and the builtin coder imported
   * createModelGateway, which imports @langchain/openai statically. Fix: the lane loads the live
   * model before a run only when it builds a live or recording gateway itself; the builtin coder
   * opens its own gateway with openModelGateway.
   */
  it("devflow iterate --replay loads the iterate lane without @langchain/openai", () => {
    const notARepo = mkdtempSync(join(dir, "not-a-repo-"));
    const { status, stderr, modules } = modulesLoadedBy([
      "iterate",
      "fix the csv import",
      "--replay",
      CASSETTE,
      "-r",
      notARepo,
      "--coder",
      "command:true",
      "--no-input",
    ]);
    expect(status, stderr).toBe(2);
    expect(stderr).toContain("not a git repository");
    // The lane's runner and the builtin coder were loaded: what is asserted ran.
    expect(modules.some((m) => m.endsWith("/dist/src/lanes/iterate/run.js"))).toBe(true);
    expect(modules.some((m) => m.endsWith("/dist/src/coders/builtin/builtin-coder.js"))).toBe(true);
    expect(modules.filter((m) => LIVE_MODEL.test(m))).toEqual([]);
  });
});
