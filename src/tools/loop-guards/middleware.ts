import { AIMessage, createMiddleware, HumanMessage } from "langchain";
import { GuardSupervisor } from "./supervisor.js";
import type { GuardDecision, GuardTrip } from "./types.js";
import { LoopWatch } from "./watch.js";

export interface LoopGuardOptions {
  /** The message the model gets on a kind's first trip (text from the agent's prompts). */
  nudge: (trip: GuardTrip) => string;
  /** Every decision as it is made, e.g. for the transcript and the run's status. */
  onDecision?: (decision: GuardDecision) => void;
  /** Output tokens before the budget guard trips (default OUTPUT_TOKEN_BUDGET). */
  outputTokenBudget?: number;
}

/**
 * junco's loop guards as langchain middleware: before every model call it feeds the new assistant
 * turns and tool results to the guards. A first trip of a kind adds a nudge (a user message, which
 * every OpenAI-compatible server accepts mid-conversation, unlike a late system message); the next
 * trip of that kind ends the run with `jumpTo: "end"` from beforeModel, the same exit langchain's
 * modelCallLimitMiddleware takes, so the work done so far stays where it is. State lives in this
 * closure and is cleared at the start of every agent run.
 */
export function loopGuardMiddleware(options: LoopGuardOptions) {
  let watch = new LoopWatch(options.outputTokenBudget);
  let supervisor = new GuardSupervisor();
  let seen = 0;
  return createMiddleware({
    name: "LoopGuardMiddleware",
    beforeAgent: () => {
      watch = new LoopWatch(options.outputTokenBudget);
      supervisor = new GuardSupervisor();
      seen = 0;
    },
    beforeModel: {
      canJumpTo: ["end"],
      hook: (state) => {
        const fresh = state.messages.slice(Math.min(seen, state.messages.length));
        seen = state.messages.length;
        const trips = watch.observe(fresh);
        if (trips.length === 0) return;
        const decisions = supervisor.decide(trips, watch.modelCalls);
        for (const decision of decisions) options.onDecision?.(decision);
        const stop = decisions.find((d) => d.action === "stop");
        if (stop !== undefined) {
          return {
            jumpTo: "end",
            messages: [new AIMessage(`devflow stopped the run (${stop.kind}): ${stop.detail}`)],
          };
        }
        for (const decision of decisions) watch.reset(decision.kind);
        return { messages: [new HumanMessage(decisions.map((d) => options.nudge(d)).join("\n\n"))] };
      },
    },
  });
}
