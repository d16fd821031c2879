import { MemorySaver } from "@langchain/langgraph";
import { openTaskStore } from "../../src/home/task-store.js";
import type { LaneOptions } from "../../src/lanes/iterate/lane/deps.js";
import { createRunRecord } from "../../src/lanes/iterate/lane/run-record.js";
import { setUpTask } from "../../src/lanes/iterate/task-setup.js";

/**
 * A new task set up as `devflow iterate` sets it up before its first node (run record, the coder's
 * checkout, adoption, the verification checkout and snapshot store), with no lane behind it.
 */
export async function newTaskSetup(repoRoot: string, taskId: string) {
  const store = openTaskStore(repoRoot, taskId);
  return setUpTask({
    start: { resume: false },
    request: "change a",
    located: { repoRoot, url: null },
    store,
    saver: new MemorySaver(),
    taskId,
    cloned: null,
    env: process.env,
    record: (workspace) =>
      createRunRecord(store, {
        taskId,
        workspace,
        lane: { maxJudgeAttempts: 1, maxEscalations: 0, baseTimeoutMs: 1 } as LaneOptions,
        coder: "test",
        model: "none",
        reason: "test",
      }),
  });
}
