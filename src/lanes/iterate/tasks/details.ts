import { existsSync } from "node:fs";
import { join } from "node:path";
import { DevflowError } from "../../../errors/index.js";
import { openTaskStore } from "../../../home/index.js";
import { readTaskEntry, type TaskEntry } from "./inventory.js";

export interface AttemptDetails {
  id: string;
  verdict: "pass" | "fail";
  coderStatus: string;
  summary: string;
  /** Each verifier's result and the file holding its envelope (absolute). */
  checks: Array<{ verifier: string; result: string; path: string }>;
  /** The coder's transcript, when it was written. */
  transcript: string | null;
}

/** What `devflow show <task>` prints: the task's entry plus its request, verdict and attempts. */
export interface TaskDetails extends TaskEntry {
  title: string | null;
  request: string | null;
  questions: string[];
  /** The coder backend the task ran with (`iterator_run.coder_backend`), null before its record. */
  coder: string | null;
  attempts: AttemptDetails[];
  /** The run's files a person opens first: its record, events, and per attempt the transcript. */
  files: { runRecord: string; events: string };
}

/** One task's details, read from its artifacts (no lock, no writes). */
export async function readTaskDetails(repoRoot: string, taskId: string): Promise<TaskDetails> {
  const entry = await readTaskEntry(repoRoot, taskId);
  if (!entry || entry.createdAt === null)
    throw new DevflowError(
      "TASK_NOT_FOUND",
      `no task "${taskId}" in ${repoRoot}; devflow runs lists the tasks`,
    );
  const store = openTaskStore(repoRoot, taskId);
  const run = await store.read("iterator_run").catch(() => null);
  const task = await store.read("task_artifact").catch(() => null);
  const attempts = (run?.attempts ?? []).map((a): AttemptDetails => {
    const transcript = join(store.dir, "attempts", a.attempt_id, "coder_transcript.log");
    return {
      id: a.attempt_id,
      verdict: a.verdict,
      coderStatus: a.coder_status,
      summary: a.summary,
      checks: a.verifier_refs.map((r) => ({
        verifier: r.verifier,
        result: r.overall_result,
        path: join(store.dir, r.path),
      })),
      transcript: existsSync(transcript) ? transcript : null,
    };
  });
  return {
    ...entry,
    title: task?.title ?? null,
    request: task?.request ?? null,
    questions: run?.terminal?.questions ?? [],
    coder: run?.coder_backend ?? null,
    attempts,
    files: { runRecord: join(store.dir, "iterator_run.json"), events: join(store.dir, "events.jsonl") },
  };
}
