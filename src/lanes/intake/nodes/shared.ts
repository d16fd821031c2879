import { relative } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { Route } from "../../../agents/router/router.js";
import type { ConversationTurn } from "../../../artifacts/schemas/index.js";
import { describeError } from "../../../errors/index.js";
import { nowIso } from "../../../util/time.js";
import type { IntakeDeps } from "../deps.js";
import type { IntakeStateUpdate, LaneResult } from "../state.js";
import { assistantTurn, toTurns } from "../turns.js";

/** The message being handled and the turns before it. */
export function currentMessage(messages: BaseMessage[]): { message: string; priorTurns: ConversationTurn[] } {
  const index = messages.findLastIndex((m) => HumanMessage.isInstance(m));
  const last = messages[index];
  const message = last === undefined ? "" : typeof last.content === "string" ? last.content : last.text;
  return { message, priorTurns: toTurns(messages.slice(0, Math.max(0, index))) };
}

/** A lane's answer: shown in the chat, kept as an assistant turn, and recorded for /runs. */
export function reply(
  deps: IntakeDeps,
  lane: Route,
  text: string,
  result: Omit<LaneResult, "lane" | "at"> | null,
): IntakeStateUpdate {
  deps.emit({ type: "reply", lane, text });
  if (result) deps.emit({ type: "lane_result", lane, ...result });
  return {
    messages: [assistantTurn(text)],
    ...(result ? { results: [{ lane, ...result, at: nowIso() }] } : {}),
  };
}

/**
 * A lane that did not finish: Ctrl-C (the run is resumable) or an error. Either way the turn ends
 * with an honest message instead of failing the conversation's graph.
 */
export function laneStopped(
  deps: IntakeDeps,
  lane: Route,
  id: string,
  error: unknown,
  resumeHint: string | null,
): IntakeStateUpdate {
  return stoppedReply(deps, lane, id, describeError(error), deps.signal().aborted, resumeHint);
}

/** The reply and /runs record of a lane that stopped (Ctrl-C) or failed with `message`. */
export function stoppedReply(
  deps: IntakeDeps,
  lane: Route,
  id: string,
  message: string,
  stopped: boolean,
  resumeHint: string | null,
): IntakeStateUpdate {
  if (stopped) {
    const text = `Stopped.${resumeHint ? ` ${resumeHint}` : ""}`;
    deps.emit({ type: "stopped", lane, id, message: text });
    return reply(deps, lane, text, { id, outcome: "stopped", summary: text, artifact_path: null });
  }
  deps.emit({ type: "error", lane, message });
  const text = `The ${lane} lane failed: ${message}${resumeHint ? `\n${resumeHint}` : ""}`;
  return reply(deps, lane, text, { id, outcome: "failed", summary: message, artifact_path: null });
}

/** A path of the conversation's repository as the chat shows it. */
export const relativeToRepo = (deps: IntakeDeps, path: string): string => relative(deps.repoRoot, path);
