import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exampleArtifacts } from "../../test/support/artifact-examples.js";
import { makeRepo, removeDir } from "../../test/support/test-repo.js";
import { openTaskWorktree } from "../workspace/index.js";
import { openCheckpointer, openExistingCheckpointer } from "./checkpointer.js";
import { claimRecordId, freshTaskId, newThreadId, taskIdFromRequest } from "./mint-id.js";
import {
  listTasks,
  recordFileLabel,
  statePath,
  taskDir,
  taskDirLabel,
  taskExists,
  worktreesDir,
} from "./paths.js";
import { readRecord, writeRecord } from "./record-store.js";
import { assertTaskId, isTaskId } from "./task-id.js";
import { lockTask, withTaskLock } from "./task-lock.js";
import { openTaskStore } from "./task-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});
const repo = (): string => {
  const root = makeRepo();
  dirs.push(root);
  return root;
};

describe("the one task-id rule", () => {
  it.each(["add-login-form", "fix_1.2", "A", "20250101-120000-how-does-x-work"])("accepts %s", (id) => {
    expect(isTaskId(id)).toBe(true);
    expect(assertTaskId(id)).toBe(id);
  });

  it.each([
    ["path traversal", "../escape"],
    ["a dot-dot inside", "a..b"],
    ["a slash", "a/b"],
    ["a leading dot", ".hidden"],
    ["a leading dash", "-x"],
    ["a .lock suffix (git refuses the ref)", "x.lock"],
    ["a trailing dot (git refuses the ref)", "x."],
    ["empty", ""],
    ["a space", "a b"],
    ["more than 200 characters", "a".repeat(201)],
  ])("refuses %s", (_why, id) => {
    expect(isTaskId(id)).toBe(false);
    expect(() => assertTaskId(id)).toThrow(/invalid task id/);
  });

  it("guards every path built from an id", () => {
    expect(() => taskDir("/r", "../escape")).toThrow(/invalid task id/);
    expect(() => taskDirLabel("x.lock")).toThrow(/invalid task id/);
    expect(() => recordFileLabel("idea", "../../etc")).toThrow(/invalid task id/);
    expect(() => openTaskStore("/r", "../escape")).toThrow(/invalid task id/);
  });
});

describe("paths under .devflow", () => {
  it("lays out tasks, records, worktrees and the state database under <repo>/.devflow", () => {
    expect(taskDir("/r", "fix-total-rounding")).toBe(join("/r", ".devflow", "iterate", "fix-total-rounding"));
    expect(openTaskStore("/r", "fix-total-rounding").dir).toBe(taskDir("/r", "fix-total-rounding"));
    expect(taskDirLabel("t1")).toBe(join(".devflow", "iterate", "t1"));
    expect(recordFileLabel("insight", "r1")).toBe(join(".devflow", "insight", "r1", "insight_answer.json"));
    expect(recordFileLabel("idea", "r1")).toBe(join(".devflow", "idea", "r1", "idea_brief.json"));
    expect(worktreesDir("/r")).toBe(join("/r", ".devflow", "worktrees"));
    expect(statePath("/r")).toBe(join("/r", ".devflow", "state.sqlite"));
  });

  it("knows a task by its run record, not by a half-made dir", () => {
    const root = repo();
    mkdirSync(taskDir(root, "half"), { recursive: true });
    expect(taskExists(root, "half")).toBe(false);
    expect(listTasks(root)).toEqual(["half"]);
  });
});

describe("minting ids", () => {
  it("slugs a request into a task id, and says when it cannot", () => {
    expect(taskIdFromRequest("Add login form!")).toBe("add-login-form");
    expect(taskIdFromRequest("  ...  ")).toBeNull();
    expect(taskIdFromRequest(`${"word ".repeat(30)}end`)?.length).toBeLessThanOrEqual(60);
  });

  it("gives a repeated request a fresh id, and a request without letters a fallback", () => {
    const root = repo();
    expect(freshTaskId(root, "Add login form")).toBe("add-login-form");
    mkdirSync(taskDir(root, "add-login-form"), { recursive: true });
    expect(freshTaskId(root, "Add login form")).toBe("add-login-form-2");
    expect(freshTaskId(root, "???")).toBe("chat-task");
  });

  it("claims record dirs by mkdir, so the same text in the same second gets -2", () => {
    const root = repo();
    const now = new Date("2025-01-01T12:00:00Z");
    const a = claimRecordId(root, "insight", "How are totals rounded?", now);
    const b = claimRecordId(root, "insight", "How are totals rounded?", now);
    expect(a).toBe("20250101-120000-how-are-totals-rounded");
    expect(b).toBe(`${a}-2`);
    expect(isTaskId(a) && isTaskId(b)).toBe(true);
    expect(readFileSync(join(root, ".devflow", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("mints chat thread ids that are valid ids and differ", () => {
    const now = new Date("2025-01-01T12:00:00Z");
    const a = newThreadId(now);
    expect(a).toMatch(/^chat-20250101-120000-[0-9a-f]{4}$/);
    expect(isTaskId(a)).toBe(true);
  });
});

describe("record store", () => {
  it("writes a validated record into its claimed dir and reads it back; unknown or bad ids read as null", async () => {
    const root = repo();
    const id = claimRecordId(root, "insight", "How are totals rounded?");
    const path = await writeRecord(root, "insight", { ...exampleArtifacts().insight_answer, id });
    expect(path).toBe(join(root, recordFileLabel("insight", id)));
    expect(readRecord(root, "insight", id)?.id).toBe(id);
    expect(readRecord(root, "insight", "nope")).toBeNull();
    expect(readRecord(root, "insight", "../../x")).toBeNull();
  });
});

describe("the one task lock", () => {
  it("is one lock per task dir: a short writer is refused while a run holds it, and gets it after", async () => {
    const root = repo();
    const release = await lockTask(root, "busy");
    await expect(withTaskLock(root, "busy", async () => "wrote")).rejects.toThrow(
      /another devflow run is working on task busy/,
    );
    await release();
    await expect(withTaskLock(root, "busy", async () => "wrote")).resolves.toBe("wrote");
    expect(existsSync(join(taskDir(root, "busy"), "run.lock"))).toBe(false);
  });

  it("leaves no store lock of its own in the task dir (the task lock is the only one)", async () => {
    const root = repo();
    const release = await lockTask(root, "t");
    const store = openTaskStore(root, "t");
    const { revision: _r, ...draft } = exampleArtifacts("t").task_artifact;
    const racing = await Promise.allSettled([
      store.write("task_artifact", draft, { expectedRevision: 0 }),
      openTaskStore(root, "t").write("task_artifact", draft, { expectedRevision: 0 }),
    ]);
    expect(racing.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    await release();
    expect(existsSync(join(store.dir, ".store.lock"))).toBe(false);
  });
});

describe("the checkpointer", () => {
  it("opens .devflow/state.sqlite (creating .devflow), and reading never creates it", () => {
    const root = repo();
    expect(openExistingCheckpointer(root)).toBeNull();
    expect(existsSync(join(root, ".devflow"))).toBe(false);
    const saver = openCheckpointer(root);
    saver.db.close();
    expect(existsSync(statePath(root))).toBe(true);
    const again = openExistingCheckpointer(root);
    expect(again).not.toBeNull();
    again?.db.close();
  });
});

// Keep the worktree import honest: the worktree path is asked of the home too.
it("puts task worktrees where the workspace looks for them", async () => {
  const root = repo();
  await expect(openTaskWorktree({ repoRoot: root, taskId: "none", baseCommit: "HEAD" })).rejects.toThrow(
    join(worktreesDir(root), "none"),
  );
});
