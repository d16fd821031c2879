import { TOOL_ERROR_STREAK_THRESHOLD } from "./thresholds.js";
import type { GuardTrip } from "./types.js";

/** What a tool result looks like to the error-streak guard. */
export interface ToolOutcome {
  name: string;
  /** The message's status (langchain sets "error" when a tool threw or a limit refused it). */
  status?: "success" | "error" | undefined;
  content: string;
}

/**
 * Whether a tool result is a failure. devflow's tools (src/tools/define-tool.ts) never throw at the
 * model: they answer "Refused: ...", "Invalid arguments for <tool>: ..." or "<tool> failed: ...".
 * A command that exits non-zero is not a tool failure: running a failing test is the point.
 */
export function isToolFailure(outcome: ToolOutcome): boolean {
  if (outcome.status === "error") return true;
  const text = outcome.content;
  return (
    text.startsWith("Refused: ") ||
    text.startsWith(`Invalid arguments for ${outcome.name}:`) ||
    text.startsWith(`${outcome.name} failed: `)
  );
}

/** The same tool failing N times in a row; any successful tool result resets the streak. */
export class ToolErrorStreakGuard {
  private tool: string | null = null;
  private streak = 0;

  observe(outcome: ToolOutcome): GuardTrip | null {
    if (!isToolFailure(outcome)) {
      this.reset();
      return null;
    }
    this.streak = outcome.name === this.tool ? this.streak + 1 : 1;
    this.tool = outcome.name;
    if (this.streak < TOOL_ERROR_STREAK_THRESHOLD) return null;
    const last = outcome.content.split("\n")[0] ?? "";
    return {
      kind: "tool_error_streak",
      detail: `${outcome.name} failed ${this.streak} times in a row; the last answer was: ${last.slice(0, 200)}`,
    };
  }

  reset(): void {
    this.tool = null;
    this.streak = 0;
  }
}
