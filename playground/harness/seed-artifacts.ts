import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ScenarioInput } from "../../scenarios/scenario.js";
import {
  type ArtifactStore,
  checkSeamRedOnBase,
  createRunRecord,
  type IteratorRun,
  type LaneOptions,
  nowIso,
  type ObservationArtifact,
  type TaskArtifact,
  type TaskFraming,
  type TaskWorkspace,
} from "../../src/index.js";

/**
 * The run record a lane starts with, so a node run alone finds the iterator_run it updates. Its
 * history says the record was seeded by the playground, which keeps a node scenario's artifacts
 * honest about how the run began.
 */
export async function seedRunRecord(
  store: ArtifactStore,
  ws: TaskWorkspace,
  setup: { taskId: string; lane: LaneOptions; coder: string; model: string },
): Promise<IteratorRun> {
  return createRunRecord(store, {
    ...setup,
    workspace: ws,
    reason: "seeded by the playground for a single-node scenario",
  });
}

/** task_artifact r1 from the scenario's framed task, as the Framer would have written it. */
export async function seedTask(
  store: ArtifactStore,
  taskId: string,
  input: Pick<ScenarioInput, "request" | "priorTurns">,
  framing: TaskFraming,
): Promise<TaskArtifact> {
  const at = nowIso();
  return store.write(
    "task_artifact",
    {
      ...framing,
      artifact: "task_artifact",
      task_id: taskId,
      request: input.request,
      prior_turns: input.priorTurns,
      created_at: at,
      updated_at: at,
    },
    { expectedRevision: 0 },
  );
}

/**
 * observation_artifact r1 from the scenario's findings: the seam files are written into the
 * worktree and devflow's own red-on-base check runs on them, exactly what the observe node records.
 */
export async function seedObservation(
  store: ArtifactStore,
  ws: TaskWorkspace,
  task: TaskArtifact,
  seeded: NonNullable<ScenarioInput["observation"]>,
  commandTimeoutMs: number,
): Promise<ObservationArtifact> {
  for (const [path, content] of Object.entries(seeded.seamFiles)) {
    const file = join(ws.worktree, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const findings = seeded.findings;
  const seam = findings.failing_seam;
  const red = seam
    ? await checkSeamRedOnBase({
        cwd: ws.worktree,
        command: seam.command,
        timeoutMs: commandTimeoutMs,
        logPath: join(store.dir, "seam_on_base.log"),
      })
    : null;
  const at = nowIso();
  return store.write(
    "observation_artifact",
    {
      ...findings,
      artifact: "observation_artifact",
      task_id: task.task_id,
      task_revision: task.revision,
      observer_claimed_status: findings.status,
      seam_check: red
        ? {
            ran: red.ran,
            exit_code: red.exitCode,
            red: red.ran && red.red,
            output_excerpt: red.outputExcerpt,
            log_ref: "seam_on_base.log",
            checked_at: at,
          }
        : null,
      created_at: at,
      updated_at: at,
    },
    { expectedRevision: 0 },
  );
}
