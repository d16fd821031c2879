import { Command, END } from "@langchain/langgraph";
import { checkoutEndText } from "../../../artifacts/checkout-end.js";
import { taskDirLabel } from "../../../home/index.js";
import { takeResultLines } from "../../iterate/tasks/take-result.js";
import type { IterateResult, LaneOutcome } from "../../outcome.js";
import { renderBrief } from "../brief-text.js";
import type { IntakeDeps } from "../deps.js";
import type { TaskEnding } from "./finish-task.js";
import { relativeToRepo, reply, stoppedReply } from "./shared.js";

/**
 * What the conversation keeps of a lane's outcome, and where the turn goes next: a reply (and a
 * /runs record) for a finished or failed lane, a pause at `ask` for questions, the target lane
 * for a handoff. This is the only place that maps outcomes to the chat.
 */
export function recordOutcome(
  deps: IntakeDeps,
  outcome: LaneOutcome,
  message: string,
  ending: TaskEnding | null = null,
): Command {
  const done = { resume: null, handoff: null };
  switch (outcome.kind) {
    case "needs_answers": {
      const { task_id, questions } = outcome;
      deps.emit({ type: "questions", task_id, questions });
      const text = `Before changing anything for ${task_id} I need to know:\n${questions.map((q) => `  - ${q}`).join("\n")}\nYour next message answers this.`;
      return new Command({
        update: { ...reply(deps, "iterate", text, null), pending: { task_id, questions }, ...done },
        goto: "ask",
      });
    }
    case "handoff": {
      const { result, target, reason, path } = outcome;
      deps.emit({ type: "handoff", task_id: result.taskId, target, reason, path });
      const text = `This is not a task-scale change (${reason}). Continuing in the ${target} lane; the handoff is recorded in ${path}.`;
      return new Command({
        update: {
          ...reply(deps, "iterate", text, iterateRecord(result)),
          resume: null,
          handoff: { target, request: outcome.request || message, task_id: result.taskId, path },
        },
        goto: target,
      });
    }
    case "failed": {
      const hint = outcome.resumable
        ? `The run is resumable: /resume ${outcome.id} (or devflow iterate --resume --task-id ${outcome.id} --repo ${deps.repoRoot}).`
        : null;
      return new Command({
        update: {
          ...stoppedReply(deps, outcome.lane, outcome.id, outcome.message, outcome.stopped, hint),
          ...done,
        },
        goto: END,
      });
    }
    case "finished": {
      switch (outcome.lane) {
        case "iterate":
          return new Command({
            update: {
              ...reply(deps, "iterate", summarize(outcome.result, ending), iterateRecord(outcome.result)),
              ...done,
            },
            goto: END,
          });
        case "insight": {
          const { result } = outcome;
          const path = relativeToRepo(deps, result.artifactPath);
          const refs = result.references.map((r) => `  - ${r.path}${r.line === null ? "" : `:${r.line}`}`);
          const text = [
            result.answer,
            refs.length ? `References:\n${refs.join("\n")}` : "",
            `(recorded in ${path})`,
          ];
          const record = {
            id: result.id,
            outcome: "answered",
            summary: firstLine(result.answer),
            artifact_path: path,
          };
          return new Command({
            update: { ...reply(deps, "insight", text.filter(Boolean).join("\n\n"), record), ...done },
            goto: END,
          });
        }
        case "idea": {
          const { result } = outcome;
          const path = relativeToRepo(deps, result.artifactPath);
          const text = `${renderBrief(result.brief)}\n\n(brief saved to ${path})`;
          const record = {
            id: result.id,
            outcome: "planned",
            summary: result.brief.title,
            artifact_path: path,
          };
          return new Command({ update: { ...reply(deps, "idea", text, record), ...done }, goto: END });
        }
      }
    }
  }
}

const iterateRecord = (result: IterateResult) => ({
  id: result.taskId,
  outcome: result.terminal.verdict,
  summary: result.terminal.reason,
  artifact_path: taskDirLabel(result.taskId),
});

function summarize(result: IterateResult, ending: TaskEnding | null): string {
  const t = result.terminal;
  const lines = [`${t.verdict}: ${t.reason}`];
  if (t.branch) lines.push(`  branch    ${t.branch}${t.commit ? ` @ ${t.commit.slice(0, 10)}` : ""}`);
  lines.push(`  artifacts ${taskDirLabel(result.taskId)}`, `  attempts  ${result.attempts}`);
  if (ending) lines.push(`  worktree  ${checkoutEndText(result.worktree, ending.checkout)}`);
  if (t.questions.length) lines.push("  questions", ...t.questions.map((q) => `    - ${q}`));
  if (ending?.takeResult) lines.push(...takeResultLines(ending.takeResult));
  return lines.join("\n");
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
