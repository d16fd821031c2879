import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exampleArtifacts } from "../../test/support/artifact-examples.js";
import { tempDir } from "../../test/support/lane-harness.js";
import { claimRecordId, openTaskStore, writeRecord } from "../home/index.js";
import type { LaneResult } from "../lanes/intake/state.js";
import { runsTable, showRun } from "./show.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repo(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

const AT = "2025-01-01T12:00:00.000Z";

async function writeRun(root: string, taskId: string, terminal: boolean) {
  const { revision: _, ...run } = exampleArtifacts(taskId).iterator_run;
  await openTaskStore(root, taskId).write(
    "iterator_run",
    {
      ...run,
      terminal: terminal
        ? {
            verdict: "completed",
            reason: "all green",
            branch: `devflow/${taskId}`,
            commit: "abcdef1234567890",
            questions: [],
            at: AT,
          }
        : null,
    },
    { expectedRevision: 0 },
  );
}

describe("/runs", () => {
  it("takes iterate verdicts from iterator_run.json, not from what the chat recorded earlier", async () => {
    const root = repo();
    await writeRun(root, "trim-emails", true);
    await writeRun(root, "round-totals", false);
    const results: LaneResult[] = [
      {
        lane: "iterate",
        id: "trim-emails",
        outcome: "stopped",
        summary: "Stopped.",
        artifact_path: null,
        at: AT,
      },
      {
        lane: "iterate",
        id: "round-totals",
        outcome: "stopped",
        summary: "Stopped.",
        artifact_path: null,
        at: AT,
      },
      {
        lane: "insight",
        id: "20250101-120000-why",
        outcome: "answered",
        summary: "Because.",
        artifact_path: null,
        at: AT,
      },
    ];
    const table = await runsTable(root, results);
    expect(table.split("\n")).toEqual([
      "  trim-emails          iterate  completed  Stopped.",
      "  round-totals         iterate  needs_respawn, not finished (/resume round-totals)  Stopped.",
      "  20250101-120000-why  insight  answered  Because.",
    ]);
  });

  it("says so when the thread has no runs", async () => {
    expect(await runsTable(repo(), [])).toBe("No runs in this thread yet.");
  });
});

describe("/show", () => {
  it("summarizes an iterate task from its artifacts", async () => {
    const root = repo();
    await writeRun(root, "trim-emails", true);
    const text = await showRun(root, "trim-emails");
    expect(text).toContain("verdict   completed: all green");
    expect(text).toContain("branch    devflow/trim-emails @ abcdef1234");
    expect(text).toContain("  attempt-001  fail  seam still red");
  });

  it("shows an insight answer with its references", async () => {
    const root = repo();
    const id = claimRecordId(root, "insight", "How are totals rounded?");
    await writeRecord(root, "insight", { ...exampleArtifacts().insight_answer, id });
    const text = await showRun(root, id);
    expect(text).toContain("question: How are cart totals rounded?");
    expect(text).toContain("  - src/cart/total.ts:12");
    expect(text).toContain("(1 reference(s) the model gave could not be verified)");
    expect(text).toContain(join(".devflow", "insight", id, "insight_answer.json"));
  });

  it("refuses ids that could leave .devflow, and says when nothing has the id", async () => {
    const root = repo();
    expect(await showRun(root, "../../etc")).toMatch(/is not a task or record id/);
    expect(await showRun(root, "no-such-task")).toBe(
      `No task or record "no-such-task" in ${root}; /runs lists this thread's.`,
    );
  });
});
