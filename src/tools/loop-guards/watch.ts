import { AIMessage, type BaseMessage, ToolMessage } from "langchain";
import { OutputBudgetGuard } from "./output-budget.js";
import { RepeatedOutputGuard } from "./repeated-output.js";
import { RepeatedToolCallGuard } from "./repeated-tool-call.js";
import { ToolErrorStreakGuard } from "./tool-error-streak.js";
import type { GuardKind, GuardTrip } from "./types.js";

/** The four guards, fed from the agent's messages in order: assistant turns and tool results. */
export class LoopWatch {
  private readonly output = new RepeatedOutputGuard();
  private readonly calls = new RepeatedToolCallGuard();
  private readonly errors = new ToolErrorStreakGuard();
  private readonly budget: OutputBudgetGuard;
  /** Assistant messages seen so far. */
  modelCalls = 0;

  constructor(outputTokenBudget?: number) {
    this.budget = new OutputBudgetGuard(outputTokenBudget);
  }

  observe(messages: readonly BaseMessage[]): GuardTrip[] {
    const trips: (GuardTrip | null)[] = [];
    for (const message of messages) {
      if (AIMessage.isInstance(message)) {
        this.modelCalls++;
        trips.push(this.output.observe(message.text));
        trips.push(this.budget.observe(message.usage_metadata?.output_tokens ?? 0));
        for (const call of message.tool_calls ?? []) trips.push(this.calls.observe(call.name, call.args));
      } else if (ToolMessage.isInstance(message)) {
        trips.push(
          this.errors.observe({ name: message.name ?? "", status: message.status, content: message.text }),
        );
      }
    }
    return trips.filter((trip): trip is GuardTrip => trip !== null);
  }

  /** junco re-instantiates a guard after its nudge, so it does not trip again on what it already saw. */
  reset(kind: GuardKind): void {
    const guard = {
      repeated_output: this.output,
      repeated_tool_call: this.calls,
      tool_error_streak: this.errors,
      output_budget: this.budget,
    }[kind];
    guard.reset();
  }
}
