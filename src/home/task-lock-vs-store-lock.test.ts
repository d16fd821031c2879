import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { ArtifactStore } from "../artifacts/store.js";
import { acquireTaskLock } from "./task-lock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// Bug: both locks targeted the task dir, and proper-lockfile keys held locks by target path, so a
// store write released the run lock and the run's own release then threw "Lock is not acquired".
it("task run lock survives artifact store writes in the same dir", async () => {
  const dir = join(mkdtempSync(join(tmpdir(), "devflow-lock-")), "task");
  dirs.push(dir);
  const release = await acquireTaskLock(dir);
  const store = new ArtifactStore(dir);
  const now = new Date().toISOString();
  await store.write(
    "promotion_handoff",
    {
      artifact: "promotion_handoff",
      task_id: "task",
      target_lane: "idea",
      reason: "x",
      source_refs: {
        task_artifact: { path: "task_artifact.json", revision: 1 },
        observation_artifact: null,
        iterator_run: { path: "iterator_run.json", revision: 1 },
      },
      downstream_ref: null,
      created_at: now,
    },
    { expectedRevision: 0 },
  );
  await expect(acquireTaskLock(dir)).rejects.toThrow(/another devflow run is working on task/);
  await expect(release()).resolves.toBeUndefined();
});
