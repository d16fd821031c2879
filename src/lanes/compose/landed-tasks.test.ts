import { describe, expect, it } from "vitest";
import type { IdeaPlan, IdeaTask } from "../../artifacts/schemas/index.js";
import { landedTasksProblem } from "./landed-tasks.js";

const task = (n: number, title: string): IdeaTask => ({
  id: `T${n}`,
  title,
  request: `Change ${title.toLowerCase()} in src/csv-import.js`,
  task_type: "targeted_improvement",
  surface_hints: ["src/csv-import.js"],
  success_criteria: [`${title} works`],
  depends_on: n > 1 ? [`T${n - 1}`] : [],
});

const LANDED = [task(1, "Trim emails"), task(2, "Reject duplicate emails")];
const plan = (tasks: IdeaTask[]): IdeaPlan => ({
  title: "CSV import fixes",
  problem: "The import keeps bad rows.",
  goals: ["Clean imports"],
  tasks,
  open_questions: [],
  risks: [],
});

describe("landedTasksProblem (a re-plan's edit may not touch the landed tasks)", () => {
  it("accepts an edit that keeps the landed tasks, whatever their key order, and revises the rest", () => {
    const reordered = Object.fromEntries(Object.entries(LANDED[0] as IdeaTask).reverse()) as IdeaTask;
    expect(
      landedTasksProblem(LANDED, plan([reordered, task(2, "Reject duplicate emails"), task(3, "Anything")])),
    ).toBeNull();
    expect(landedTasksProblem([], plan([task(1, "All new")]))).toBeNull();
  });

  it("refuses a changed landed task, naming its place and id", () => {
    const changed = { ...task(2, "Reject duplicate emails"), success_criteria: ["something else"] };
    expect(
      landedTasksProblem(LANDED, plan([task(1, "Trim emails"), changed, task(3, "Skip comments")])),
    ).toBe("tasks.1: T2 landed and cannot be changed (keep the landed tasks T1, T2 first, unchanged)");
    const retitled = [task(1, "Trim all emails"), task(2, "Reject duplicate emails")];
    expect(landedTasksProblem(LANDED, plan(retitled))).toMatch(/^tasks\.0: T1 landed and cannot be changed/);
  });

  it("refuses a removed landed task (the edit lists fewer tasks than landed, or another task first)", () => {
    expect(landedTasksProblem(LANDED, plan([task(1, "Trim emails")]))).toMatch(
      /^tasks\.1: T2 landed and cannot be removed/,
    );
    // Removing T1 shifts T2 into its place: T1's place now holds another task.
    const shifted = [{ ...task(2, "Reject duplicate emails"), id: "T1", depends_on: [] }];
    expect(landedTasksProblem(LANDED, plan(shifted))).toMatch(/^tasks\.0: T1 landed and cannot be changed/);
  });
});
