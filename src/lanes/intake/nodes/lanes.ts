import type { Command } from "@langchain/langgraph";
import { describeError } from "../../../errors/index.js";
import { freshTaskId, isTaskId, taskExists } from "../../../home/index.js";
import { runIdea } from "../../idea/run.js";
import { runInsight } from "../../insight/run.js";
import { iterateLane } from "../../iterate/run.js";
import { type Failed, failedOutcome, type LaneOutcome } from "../../outcome.js";
import type { IntakeDeps } from "../deps.js";
import { detached } from "../detached.js";
import { linkDownstream } from "../handoff.js";
import type { IntakeStateValue } from "../state.js";
import { finishChatTask } from "./finish-task.js";
import { InFlightNodes } from "./in-flight.js";
import { recordOutcome } from "./record-outcome.js";
import { currentMessage } from "./shared.js";
import { taskProgress } from "./task-progress.js";

/** How long a stopped lane may take to wind down (the coder's process group gets SIGTERM, then SIGKILL). */
const SETTLE_LIMIT_MS = 60_000;

/**
 * The intake's lane nodes only call a lane runner and record the outcome it returned
 * (record-outcome.ts): the lanes know nothing of the chat. A new message starts an iterate task;
 * `state.resume` (an answer, or /resume) continues one with `resume(taskId, answer)`.
 */
export function iterateNode(deps: IntakeDeps) {
  return async (state: IntakeStateValue): Promise<Command> => {
    const resume = state.resume;
    const { message, priorTurns } = currentMessage(state.messages);
    const taskId = resume?.task_id ?? freshTaskId(deps.repoRoot, message);
    const inFlight = new InFlightNodes();
    const progress = taskProgress(deps, inFlight);
    const lane = iterateLane({
      repo: deps.repoRoot,
      baseDir: deps.repoRoot,
      model: deps.iterate.model,
      coder: deps.iterate.coder,
      mode: deps.gateway.mode,
      gateway: deps.gateway,
      lane: deps.iterate.lane,
      ...(deps.iterate.maxRequestBytes === undefined
        ? {}
        : { maxRequestBytes: deps.iterate.maxRequestBytes }),
      // The chat asks: questions pause the task and the user's next message answers them.
      interactive: true,
      onProgress: progress.onProgress,
      ...(progress.confirmCoder ? { confirmCoder: progress.confirmCoder } : {}),
      signal: deps.signal(),
    });
    const outcome = await callLane(
      deps,
      "iterate",
      taskId,
      () =>
        resume
          ? lane.resume(taskId, resume.answer)
          : lane.run({ request: message, taskId, resume: false, priorTurns }),
      () => inFlight.settled(SETTLE_LIMIT_MS),
    ).finally(() => progress.close());
    const ending =
      outcome.kind === "finished" && outcome.lane === "iterate"
        ? await finishChatTask(deps, outcome.result)
        : null;
    return recordOutcome(deps, outcome, message, ending);
  };
}

/** insight: read-only investigation, answered with file:line references. */
export function insightNode(deps: IntakeDeps) {
  return async (state: IntakeStateValue): Promise<Command> => {
    const { message, priorTurns } = currentMessage(state.messages);
    const handoff = state.handoff;
    const outcome = await callLane(deps, "insight", "", async () => {
      const done = await runInsight({
        gateway: deps.gateway,
        repoRoot: deps.repoRoot,
        question: handoff?.request ?? message,
        priorTurns,
        signal: deps.signal(),
        ...(handoff ? { handoff: { task_id: handoff.task_id, path: handoff.path } } : {}),
      });
      if (handoff) await linkDownstream(deps.repoRoot, handoff, done.result.id);
      return done;
    });
    return recordOutcome(deps, outcome, message);
  };
}

/** idea: a planning brief whose tasks each fit the iterate lane. */
export function ideaNode(deps: IntakeDeps) {
  return async (state: IntakeStateValue): Promise<Command> => {
    const { message, priorTurns } = currentMessage(state.messages);
    const handoff = state.handoff;
    const outcome = await callLane(deps, "idea", "", async () => {
      const done = await runIdea({
        gateway: deps.gateway,
        repoRoot: deps.repoRoot,
        request: handoff?.request ?? message,
        priorTurns,
        ...(handoff ? { handoff: { task_id: handoff.task_id, path: handoff.path } } : {}),
      });
      if (handoff) await linkDownstream(deps.repoRoot, handoff, done.result.id);
      return done;
    });
    return recordOutcome(deps, outcome, message);
  };
}

/**
 * Runs a lane runner from inside an intake node (the one place that needs `detached`, see
 * detached.ts) and turns a thrown error into a `failed` outcome, so a lane that fails or is
 * stopped ends the turn with an honest message instead of failing the conversation's graph.
 */
async function callLane(
  deps: IntakeDeps,
  lane: Failed["lane"],
  id: string,
  run: () => Promise<LaneOutcome>,
  settle?: () => Promise<unknown>,
): Promise<LaneOutcome> {
  try {
    return await detached(run);
  } catch (error) {
    await settle?.();
    return failedOutcome(lane, id, describeError(error), {
      stopped: deps.signal().aborted,
      resumable: lane === "iterate" && isTaskId(id) && taskExists(deps.repoRoot, id),
    });
  }
}
