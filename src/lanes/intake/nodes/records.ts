import { relative } from "node:path";
import { Command, END } from "@langchain/langgraph";
import { runNeither } from "../../../agents/neither/neither.js";
import type { Turn } from "../../../agents/router/router.js";
import type { HandoffSource } from "../../../artifacts/schemas/index.js";
import { renderBrief } from "../brief-text.js";
import type { IntakeDeps } from "../deps.js";
import { detached } from "../detached.js";
import { linkDownstream } from "../handoff.js";
import { runIdea } from "../idea.js";
import { runInsight } from "../insight.js";
import type { IntakeStateValue } from "../state.js";
import { currentMessage, laneStopped, reply } from "./shared.js";

/** What a record lane works on: the handed-over request when the iterate lane passed it on. */
interface LaneInput {
  text: string;
  priorTurns: Turn[];
  handoff?: HandoffSource;
}

/** What the chat shows and /runs lists for a record, given its repo-relative path. */
interface Presented {
  text: string;
  outcome: string;
  summary: string;
}

/**
 * A lane that leaves a record under .devflow/<lane>/<id>/ (insight, idea): runs it, links the
 * iterate task's handoff to the record when it came from one, and replies in the chat.
 */
function recordNode<R extends { id: string; artifactPath: string }>(
  deps: IntakeDeps,
  lane: "insight" | "idea",
  produce: (input: LaneInput) => Promise<R>,
  present: (result: R, path: string) => Presented,
) {
  return async (state: IntakeStateValue): Promise<Command> => {
    const { message, priorTurns } = currentMessage(state.messages);
    const handoff = state.handoff;
    const input: LaneInput = {
      text: handoff?.request ?? message,
      priorTurns,
      ...(handoff ? { handoff: { task_id: handoff.task_id, path: handoff.path } } : {}),
    };
    try {
      const result = await detached(() => produce(input));
      if (handoff) await linkDownstream(deps.repoRoot, handoff, result.id);
      const path = relative(deps.repoRoot, result.artifactPath);
      const shown = present(result, path);
      const record = { id: result.id, outcome: shown.outcome, summary: shown.summary, artifact_path: path };
      return new Command({ update: { ...reply(deps, lane, shown.text, record), handoff: null }, goto: END });
    } catch (error) {
      return new Command({
        update: { ...laneStopped(deps, lane, "", error, null), handoff: null },
        goto: END,
      });
    }
  };
}

/** insight: read-only investigation, answered with file:line references. */
export function insightNode(deps: IntakeDeps) {
  return recordNode(
    deps,
    "insight",
    (input) =>
      runInsight({
        gateway: deps.gateway,
        repoRoot: deps.repoRoot,
        question: input.text,
        priorTurns: input.priorTurns,
        signal: deps.signal(),
        ...(input.handoff ? { handoff: input.handoff } : {}),
      }),
    (result, path) => {
      const refs = result.references.map((r) => `  - ${r.path}${r.line === null ? "" : `:${r.line}`}`);
      const text = [
        result.answer,
        refs.length ? `References:\n${refs.join("\n")}` : "",
        `(recorded in ${path})`,
      ];
      return {
        text: text.filter(Boolean).join("\n\n"),
        outcome: "answered",
        summary: firstLine(result.answer),
      };
    },
  );
}

/** idea: a planning brief whose tasks each fit the iterate lane. */
export function ideaNode(deps: IntakeDeps) {
  return recordNode(
    deps,
    "idea",
    (input) =>
      runIdea({
        gateway: deps.gateway,
        repoRoot: deps.repoRoot,
        request: input.text,
        priorTurns: input.priorTurns,
        ...(input.handoff ? { handoff: input.handoff } : {}),
      }),
    (result, path) => ({
      text: `${renderBrief(result.brief)}\n\n(brief saved to ${path})`,
      outcome: "planned",
      summary: result.brief.title,
    }),
  );
}

/** neither: a short reply plus what devflow can do. */
export function neitherNode(deps: IntakeDeps) {
  return async (state: IntakeStateValue): Promise<Command> => {
    const { message, priorTurns } = currentMessage(state.messages);
    try {
      const { reply: text } = await runNeither({ gateway: deps.gateway, message, priorTurns });
      return new Command({ update: reply(deps, "neither", text, null), goto: END });
    } catch (error) {
      return new Command({ update: laneStopped(deps, "neither", "", error, null), goto: END });
    }
  };
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
