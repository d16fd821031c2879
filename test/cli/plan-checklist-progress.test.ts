/**
 * Issue 13: "progress shows the plan as a checklist that fills in as tasks land", through the real
 * bin. `devflow plan --yes` runs the three-task demo plan (replayed models, the scripted plan coder,
 * T2 needs a repair) and each task's checklist line goes in-progress `[~]` → done `[x]`, in task
 * order, before the final report: as plain lines when stderr is a pipe, and on what a terminal
 * shows (a pseudo-terminal, where the live progress line redraws below the checklist) when it is
 * one. Needs the build (`npm run build`).
 */
import { spawn } from "node:child_process";
import { spawn as spawnPty } from "@lydell/node-pty";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { planCassettes, planCoder } from "../support/compose-harness.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";
import { screenOf } from "../support/screen.js";

const TASKS = ["T1 Trim emails before validating", "T2 Reject duplicate emails", "T3 Skip comment lines"];

function planArgs(repo: string): string[] {
  return [
    DEVFLOW_BIN,
    "plan",
    PLAN_DEMO_REQUEST,
    "-r",
    repo,
    "--replay",
    planCassettes(),
    "--coder",
    planCoder("repair"),
    "--yes",
  ];
}

/**
 * The checklist as shown: each task's `[~]` line, then its `[x]` line, task after task, all before
 * the report's first line (which repeats the finished checklist, so it must not count).
 */
function expectChecklistFillsIn(lines: string[]): void {
  const text = lines.join("\n");
  const report = lines.findIndex((l) => /^Plan \S+: completed: /.test(l));
  expect(report, text).toBeGreaterThan(0);
  const live = lines.slice(0, report);
  const at = (mark: string, task: string) => live.findIndex((l) => l.startsWith(`  ${mark} ${task}`));
  const order = TASKS.flatMap((task) => [at("[~]", task), at("[x]", task)]);
  for (const [i, index] of order.entries())
    expect(
      index,
      `checklist line ${i} (${i % 2 ? "[x]" : "[~]"} ${TASKS[i >> 1]}) before the report:\n${text}`,
    ).toBeGreaterThanOrEqual(0);
  expect(order, text).toEqual([...order].sort((a, b) => a - b));
  // Each landed line names its commit and attempts (T2 needed a repair).
  expect(live[order[3] ?? -1]).toMatch(/\[x\] T2 Reject duplicate emails \([0-9a-f]{10}, 2 attempts\)$/);
  // No task is shown failed or skipped on the way.
  expect(
    live.some((l) => /^ {2}\[[!-]\] T\d/.test(l)),
    text,
  ).toBe(false);
}

describe("devflow plan: the checklist fills in as tasks land", () => {
  it("stderr a pipe: plain checklist lines, [~] then [x] per task, in order", {
    timeout: 600_000,
  }, async () => {
    const repo = createFixtureRepo("csv-import");
    const { code, err } = await new Promise<{ code: number | null; err: string }>((resolve, reject) => {
      const child = spawn(process.execPath, planArgs(repo), { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
      let err = "";
      child.stderr.on("data", (d: Buffer) => {
        err += d.toString();
      });
      child.on("error", reject);
      child.on("close", (status) => resolve({ code: status, err }));
    });
    expect(code, err).toBe(0);
    // Plain lines: no cursor movement or erase sequences on a pipe.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for terminal escapes is the point
    expect(err).not.toMatch(/\u001b\[/);
    expectChecklistFillsIn(err.split("\n"));
  });

  it("stderr a terminal: what the terminal shows keeps each [~] and [x] line, in order", {
    timeout: 600_000,
  }, async () => {
    const repo = createFixtureRepo("csv-import");
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !["NO_COLOR", "FORCE_COLOR", "CI"].includes(k)) env[k] = v;
    const { code, raw } = await new Promise<{ code: number; raw: string }>((resolve, reject) => {
      const term = spawnPty(process.execPath, planArgs(repo), {
        cols: 250,
        rows: 60,
        cwd: repo,
        env: { ...env, TERM: "xterm" },
      });
      let raw = "";
      const timer = setTimeout(() => {
        term.kill();
        reject(new Error(`no end in time:\n${raw}`));
      }, 590_000);
      term.onData((text) => {
        raw += text;
      });
      term.onExit(({ exitCode }) => {
        clearTimeout(timer);
        resolve({ code: exitCode, raw });
      });
    });
    const screen = screenOf(raw);
    expect(code, screen.join("\n")).toBe(0);
    // It was the live display: log-update redraws (cursor up / erase line) happened.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for terminal escapes is the point
    expect(raw).toMatch(/\u001b\[(2K|1A)/);
    expectChecklistFillsIn(screen.map((l) => l.trimEnd()));
  });
});
