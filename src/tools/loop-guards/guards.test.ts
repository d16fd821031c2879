import { describe, expect, it } from "vitest";
import { OutputBudgetGuard } from "./output-budget.js";
import { RepeatedOutputGuard, repeatsWithin } from "./repeated-output.js";
import { callKey, RepeatedToolCallGuard } from "./repeated-tool-call.js";
import { GuardSupervisor } from "./supervisor.js";
import { isToolFailure, ToolErrorStreakGuard } from "./tool-error-streak.js";

const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

describe("RepeatedToolCallGuard (junco ToolCallLoopGuard thresholds)", () => {
  it("trips on the 3rd identical run_command, the 4th edit_file and the 5th read_file", () => {
    for (const [name, threshold] of [
      ["run_command", 3],
      ["search", 3],
      ["edit_file", 4],
      ["read_file", 5],
      ["some_other_tool", 4],
    ] as const) {
      const guard = new RepeatedToolCallGuard();
      const trips = times(threshold, () => guard.observe(name, { path: "a.js", n: 1 }));
      expect(trips.slice(0, -1), name).toEqual(times(threshold - 1, () => null));
      expect(trips.at(-1)?.kind, name).toBe("repeated_tool_call");
      expect(trips.at(-1)?.detail).toContain(`${name} was called ${threshold} times in a row`);
    }
  });

  it("treats argument order as irrelevant, and a different call in between restarts the count", () => {
    expect(callKey("search", { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(
      callKey("search", { b: [1, { d: 3, c: 2 }], a: 1 }),
    );
    expect(callKey("search", { a: 1 })).not.toBe(callKey("search", { a: 2 }));
    const guard = new RepeatedToolCallGuard();
    guard.observe("run_command", { command: "npm test" });
    guard.observe("run_command", { command: "npm test" });
    guard.observe("read_file", { path: "a.js" });
    expect(guard.observe("run_command", { command: "npm test" })).toBeNull();
    expect(guard.observe("run_command", { command: "npm test" })).toBeNull();
    expect(guard.observe("run_command", { command: "npm test" })).not.toBeNull();
  });
});

describe("ToolErrorStreakGuard", () => {
  const refused = (name: string) => ({ name, content: `Refused: "x" does not exist in the worktree.` });

  it("trips on the 3rd consecutive failure of the same tool; a success resets it", () => {
    const guard = new ToolErrorStreakGuard();
    expect(guard.observe(refused("read_file"))).toBeNull();
    expect(guard.observe(refused("read_file"))).toBeNull();
    expect(guard.observe({ name: "read_file", content: "a.js (lines 1-3 of 3)." })).toBeNull();
    expect(guard.observe(refused("read_file"))).toBeNull();
    expect(guard.observe(refused("read_file"))).toBeNull();
    expect(guard.observe(refused("read_file"))?.detail).toMatch(
      /^read_file failed 3 times in a row; .*Refused/,
    );
  });

  it("counts failures per tool: another tool failing starts a new streak", () => {
    const guard = new ToolErrorStreakGuard();
    guard.observe(refused("read_file"));
    guard.observe(refused("read_file"));
    expect(guard.observe(refused("edit_file"))).toBeNull();
    expect(guard.observe(refused("edit_file"))).toBeNull();
    expect(guard.observe(refused("edit_file"))?.kind).toBe("tool_error_streak");
  });

  it("knows devflow's failure answers, and a failing command is not a tool failure", () => {
    expect(isToolFailure({ name: "edit_file", content: "Invalid arguments for edit_file:\n- path: x" })).toBe(
      true,
    );
    expect(isToolFailure({ name: "search", content: "search failed: bad regex" })).toBe(true);
    expect(isToolFailure({ name: "x", status: "error", content: "Tool call limit exceeded." })).toBe(true);
    expect(isToolFailure({ name: "run_command", content: "$ npm test\nexit code: 1\n--- output" })).toBe(
      false,
    );
  });
});

describe("RepeatedOutputGuard", () => {
  it("trips when the same text (whitespace aside) is written the 4th time", () => {
    const guard = new RepeatedOutputGuard();
    const text = "Let me read the import code again.";
    expect(guard.observe(text)).toBeNull();
    expect(guard.observe(`  ${text}\n`)).toBeNull();
    expect(guard.observe("Something else entirely, with words.")).toBeNull();
    expect(guard.observe(text.replace(/ /g, "  "))).toBeNull();
    expect(guard.observe(text)?.detail).toContain("written 4 times");
  });

  it("ignores short filler (fewer than 10 distinct characters) such as empty turns", () => {
    const guard = new RepeatedOutputGuard();
    expect(times(8, () => guard.observe("")).every((t) => t === null)).toBe(true);
    expect(times(8, () => guard.observe("ok ok")).every((t) => t === null)).toBe(true);
  });

  it("trips on one long answer that loops on itself (junco's probe over the last 2000 chars)", () => {
    const looping = `${"Intro text that explains the plan in detail. ".repeat(20)}${"I will now fix validateRow by trimming the email value first. ".repeat(30)}`;
    expect(repeatsWithin(looping)).toBe(true);
    expect(new RepeatedOutputGuard().observe(looping)?.detail).toContain("within one answer");
    const varied = times(
      60,
      (i) => `Step ${i}: inspected file number ${i * 7} and found ${i % 5} issues.`,
    ).join(" ");
    expect(varied.length).toBeGreaterThan(1000);
    expect(repeatsWithin(varied)).toBe(false);
    expect(repeatsWithin("short ".repeat(100))).toBe(false);
  });
});

describe("OutputBudgetGuard", () => {
  it("trips once the run's output tokens exceed the budget, and counts again after a reset", () => {
    const guard = new OutputBudgetGuard(12_000);
    expect(guard.observe(6000)).toBeNull();
    expect(guard.observe(6000)).toBeNull();
    expect(guard.observe(1)?.detail).toBe("the model wrote 12001 output tokens, over the budget of 12000");
    guard.reset();
    expect(guard.observe(11_999)).toBeNull();
    expect(() => new OutputBudgetGuard(0)).toThrow(/positive whole number/);
  });
});

describe("GuardSupervisor (nudge once per kind, then stop)", () => {
  const trip = (kind: "repeated_output" | "output_budget") => ({ kind, detail: kind });

  it("nudges on a kind's first trip and stops on its second; kinds have their own budget", () => {
    const supervisor = new GuardSupervisor();
    expect(supervisor.decide([trip("repeated_output")], 3).map((d) => d.action)).toEqual(["nudge"]);
    expect(supervisor.decide([trip("output_budget")], 4)).toEqual([
      { kind: "output_budget", detail: "output_budget", action: "nudge", modelCall: 4 },
    ]);
    expect(supervisor.decide([trip("repeated_output")], 7)).toEqual([
      { kind: "repeated_output", detail: "repeated_output", action: "stop", modelCall: 7 },
    ]);
  });

  it("returns only the stop when one kind stops while another would be nudged", () => {
    const supervisor = new GuardSupervisor();
    supervisor.decide([trip("output_budget")], 1);
    const decisions = supervisor.decide([trip("repeated_output"), trip("output_budget")], 2);
    expect(decisions.map((d) => [d.kind, d.action])).toEqual([["output_budget", "stop"]]);
  });
});
