import { describe, expect, it } from "vitest";
import type { NodeReport } from "../lanes/iterate/lane/reporter.js";
import { colourWanted } from "./colour.js";
import type { OutputSettings } from "./commands/output-flags.js";
import { humanProgress } from "./human-progress.js";
import type { CliIO } from "./io.js";

const report = (node: string, phase: NodeReport["phase"], outcome: string | null = null): NodeReport => ({
  node,
  phase,
  ok: true,
  outcome,
  durationMs: phase === "start" ? null : 1200,
  runState: null,
  attemptId: null,
  tokens: 0,
  costUsd: 0,
  detail: { changed_files: ["src/a.ts"] },
});

function capture(settings: Partial<OutputSettings> = {}) {
  let err = "";
  const io: CliIO = { out: () => {}, err: (t) => (err += t), isTTY: false, setExitCode: () => {} };
  const all: OutputSettings = {
    colour: false,
    verbosity: "normal",
    live: false,
    heartbeatMs: 0,
    width: 160,
    ...settings,
  };
  const progress = humanProgress(io, all);
  const emit = (r: NodeReport) => progress.sink({} as never, r);
  return { progress, emit, text: () => err };
}

describe("colourWanted", () => {
  const want = (env: Record<string, string>, isTTY = true, flag?: boolean) =>
    colourWanted({ flag, env, isTTY });
  it("follows the terminal, NO_COLOR, FORCE_COLOR and --no-color", () => {
    expect(want({})).toBe(true);
    expect(want({}, false)).toBe(false);
    expect(want({ NO_COLOR: "1" })).toBe(false);
    expect(want({ NO_COLOR: "0" })).toBe(false); // any value
    expect(want({ FORCE_COLOR: "0" })).toBe(false);
    expect(want({ FORCE_COLOR: "1" }, false)).toBe(true);
    expect(want({ FORCE_COLOR: "1", NO_COLOR: "1" }, false)).toBe(false);
    expect(want({ FORCE_COLOR: "1" }, true, false)).toBe(false);
  });
});

describe("humanProgress, plain lines", () => {
  // Issue 11 "500-character gate lines": a gate's reasons came out as one line of any length.
  it("wraps a long outcome to three lines of the width, then points at events.jsonl", () => {
    const { progress, emit, text } = capture({ width: 80 });
    progress.sink.live?.artifactDir?.("/r/.devflow/iterate/t");
    emit(
      report(
        "gate",
        "end",
        `attempt-001 fail: ${"seam: failed because the pinned test stayed red; ".repeat(12)}`,
      ),
    );
    const lines = text().trimEnd().split("\n");
    expect(lines.every((l) => l.length <= 80)).toBe(true);
    expect(lines).toHaveLength(4);
    expect(lines.at(-1)).toContain("all of it: /r/.devflow/iterate/t/events.jsonl");
  });

  it("--quiet prints nothing, --verbose adds starts, details and the artifact dir", () => {
    const quiet = capture({ verbosity: "quiet" });
    quiet.progress.sink.live?.artifactDir?.("/r/a");
    quiet.emit(report("frame", "start"));
    quiet.emit(report("frame", "end", "task_artifact r1"));
    expect(quiet.text()).toBe("");
    const verbose = capture({ verbosity: "verbose" });
    verbose.progress.sink.live?.artifactDir?.("/r/a");
    verbose.emit(report("frame", "start"));
    verbose.emit(report("frame", "end", "task_artifact r1"));
    expect(verbose.text()).toContain("artifacts /r/a\n");
    expect(verbose.text()).toContain("frame     … started\n");
    expect(verbose.text()).toContain('    changed_files: ["src/a.ts"]\n');
  });

  it("a coder start line with its transcript; heartbeats while a node runs", async () => {
    const { progress, emit, text } = capture({ heartbeatMs: 20 });
    emit(report("code", "start"));
    progress.sink.live?.coderStarted?.({
      attemptId: "attempt-002",
      transcript: "/t/log",
      timeoutMs: 1000,
      run: 2,
    });
    progress.sink.live?.coderActivity?.("$ npm test");
    await new Promise((r) => setTimeout(r, 90));
    progress.close();
    const after = text().length;
    await new Promise((r) => setTimeout(r, 60));
    expect(text().length).toBe(after); // close() stops the heartbeat
    expect(text()).toContain(
      "code      … attempt-002 started (coder run 2, timeout 1s), transcript: /t/log\n",
    );
    expect(text()).toMatch(
      /code {6}… running 0s \(run 0s\) · attempt-002 · coder run 2, last: \$ npm test\n/,
    );
  });
});

/**
 * Regression (found by test/chat/pty.test.ts, ADR 0049): on a pseudo-terminal without a window
 * size stderr reports 0 columns, and the live display took 0 - 1 as its width, so every finished
 * node's line was cut to a letter and "…", and log-update wrapped the live line at 0 columns (one
 * character per line). Fix: 0 columns means unknown (80), as in summaryStyle.
 */
describe("a terminal that reports 0 columns", () => {
  it("keeps whole node lines (width 80, not -1)", () => {
    let err = "";
    const io: CliIO = {
      out: () => {},
      err: (t) => (err += t),
      isTTY: true,
      errIsTTY: true,
      errColumns: () => 0,
      setExitCode: () => {},
    };
    const settings: OutputSettings = {
      colour: false,
      verbosity: "normal",
      live: true,
      heartbeatMs: 0,
      width: 160,
    };
    const progress = humanProgress(io, settings);
    progress.sink({} as never, {
      node: "frame",
      phase: "end",
      ok: true,
      outcome: "task_artifact r1 (error_fix)",
      durationMs: 200,
      runState: null,
      attemptId: null,
      tokens: 0,
      costUsd: 0,
      detail: {},
    });
    // The live line (log-update) is not wrapped at 0 columns either: one character per line.
    progress.sink({} as never, {
      node: "observe",
      phase: "start",
      ok: true,
      outcome: null,
      durationMs: null,
      runState: null,
      attemptId: null,
      tokens: 0,
      costUsd: 0,
      detail: {},
    });
    progress.close();
    expect(err).toContain("frame     ✓ task_artifact r1 (error_fix) 0.2s");
    expect(err).toMatch(/observe {3}0s \(run 0s\)/);
  });
});
