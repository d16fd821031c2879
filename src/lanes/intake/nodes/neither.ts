import { Command, END } from "@langchain/langgraph";
import { runNeither } from "../../../agents/neither/neither.js";
import type { IntakeDeps } from "../deps.js";
import type { IntakeStateValue } from "../state.js";
import { currentMessage, laneStopped, reply } from "./shared.js";

/** neither: not a lane runner but a reply (a short answer plus what devflow can do). */
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
