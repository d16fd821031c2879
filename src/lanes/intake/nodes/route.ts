import { Command } from "@langchain/langgraph";
import { routeMessage } from "../../../agents/router/router.js";
import { nowIso } from "../../../util/time.js";
import type { IntakeDeps } from "../deps.js";
import type { IntakeStateValue } from "../state.js";
import { currentMessage } from "./shared.js";

/**
 * Every new message starts here. A task being continued (answered questions, /resume) goes back to
 * the iterate lane without a model call; anything else is routed by the router model.
 */
export function routeNode(deps: IntakeDeps) {
  return async (state: IntakeStateValue): Promise<Command> => {
    if (state.resume) return new Command({ goto: "iterate" });
    const { message, priorTurns } = currentMessage(state.messages);
    const decision = await routeMessage({ gateway: deps.gateway, message, priorTurns });
    deps.emit({ type: "route", ...decision });
    return new Command({
      update: { routes: [{ ...decision, message, at: nowIso() }], handoff: null },
      goto: decision.route,
    });
  };
}
