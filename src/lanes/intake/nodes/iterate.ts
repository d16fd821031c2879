import { Command, END } from "@langchain/langgraph";
import { freshTaskId, taskDirLabel, taskExists } from "../../../home/index.js";
import { type IterateRunResult, runIterate } from "../../iterate/run-iterate.js";
import type { IntakeDeps } from "../deps.js";
import { detached } from "../detached.js";
import { readHandoff } from "../handoff.js";
import type { IntakeStateValue } from "../state.js";
import { InFlightNodes } from "./in-flight.js";
import { currentMessage, laneStopped, reply } from "./shared.js";

/** How long a stopped lane may take to wind down (the coder's process group gets SIGTERM, then SIGKILL). */
const SETTLE_LIMIT_MS = 60_000;

/** Thrown from onQuestions: the chat asks the questions and the user's next message answers them. */
class QuestionsDeferred extends Error {
  constructor(readonly questions: string[]) {
    super("the iterate lane is waiting for answers");
  }
}

/**
 * The iterate lane as a node *function* (never a subgraph: see detached.ts). New messages start a
 * task; a `resume` continues one, handing the user's answer to the lane's own interrupt through
 * runIterate's onQuestions. Progress is streamed into the chat; a reroute or promotion continues
 * in the target lane within the same turn.
 */
export function iterateNode(deps: IntakeDeps) {
  return async (state: IntakeStateValue): Promise<Command> => {
    const resume = state.resume;
    const { message, priorTurns } = currentMessage(state.messages);
    const taskId = resume?.task_id ?? freshTaskId(deps.repoRoot, message);
    let answer = resume?.answer ?? null;
    const inFlight = new InFlightNodes();
    try {
      const result = await detached(() =>
        runIterate({
          request: resume ? "" : message,
          repo: deps.repoRoot,
          baseDir: deps.repoRoot,
          taskId,
          resume: resume !== null,
          model: deps.iterate.model,
          coder: deps.iterate.coder,
          mode: deps.gateway.mode,
          gateway: deps.gateway,
          lane: deps.iterate.lane,
          priorTurns,
          onProgress: (event, report) => {
            if (event.phase === "start") inFlight.started(event.node);
            else if (event.phase === "end" || event.phase === "error") inFlight.ended(event.node);
            deps.emit({
              type: "progress",
              task_id: event.task_id,
              node: event.node,
              phase: event.phase,
              ok: report.ok,
              outcome: event.outcome,
              run_state: event.run_state,
              attempt_id: event.attempt_id,
              duration_ms: event.duration_ms,
            });
          },
          onQuestions: async (q) => {
            if (answer === null) throw new QuestionsDeferred(q.questions);
            const given = answer;
            answer = null;
            return given;
          },
          ...(deps.iterate.confirmCoder ? { confirmCoder: deps.iterate.confirmCoder } : {}),
          signal: deps.signal(),
        }),
      );
      return await finished(deps, result, message);
    } catch (error) {
      if (error instanceof QuestionsDeferred) return askUser(deps, taskId, error.questions);
      await inFlight.settled(SETTLE_LIMIT_MS);
      const hint = `The run is resumable: /resume ${taskId} (or devflow iterate --resume --task-id ${taskId} --repo ${deps.repoRoot}).`;
      return new Command({
        update: {
          ...laneStopped(deps, "iterate", taskId, error, taskExists(deps.repoRoot, taskId) ? hint : null),
          resume: null,
        },
        goto: END,
      });
    }
  };
}

function askUser(deps: IntakeDeps, taskId: string, questions: string[]): Command {
  deps.emit({ type: "questions", task_id: taskId, questions });
  const text = `Before changing anything for ${taskId} I need to know:\n${questions.map((q) => `  - ${q}`).join("\n")}\nYour next message answers this.`;
  return new Command({
    update: { ...reply(deps, "iterate", text, null), pending: { task_id: taskId, questions }, resume: null },
    goto: "ask",
  });
}

async function finished(deps: IntakeDeps, result: IterateRunResult, message: string): Promise<Command> {
  const t = result.terminal;
  const artifactPath = taskDirLabel(result.taskId);
  const record = { id: result.taskId, outcome: t.verdict, summary: t.reason, artifact_path: artifactPath };
  if (t.verdict === "promoted" || t.verdict === "rerouted") {
    const found = await readHandoff(deps.repoRoot, result.taskId);
    if (found) {
      const target = found.handoff.target_lane;
      deps.emit({ type: "handoff", task_id: result.taskId, target, reason: t.reason, path: found.path });
      const text = `This is not a task-scale change (${t.reason}). Continuing in the ${target} lane; the handoff is recorded in ${found.path}.`;
      return new Command({
        update: {
          ...reply(deps, "iterate", text, record),
          resume: null,
          handoff: { target, request: found.request ?? message, task_id: result.taskId, path: found.path },
        },
        goto: target,
      });
    }
  }
  return new Command({
    update: { ...reply(deps, "iterate", summarize(result), record), resume: null },
    goto: END,
  });
}

function summarize(result: IterateRunResult): string {
  const t = result.terminal;
  const lines = [`${t.verdict}: ${t.reason}`];
  if (t.branch) lines.push(`  branch    ${t.branch}${t.commit ? ` @ ${t.commit.slice(0, 10)}` : ""}`);
  lines.push(`  artifacts ${taskDirLabel(result.taskId)}`, `  attempts  ${result.attempts}`);
  if (t.questions.length) lines.push("  questions", ...t.questions.map((q) => `    - ${q}`));
  return lines.join("\n");
}
