import type { Route, RouteDecision } from "../../agents/router/router.js";
import type { FinishedCheckout } from "../../artifacts/checkout-end.js";
import type { DevflowEvent } from "../../artifacts/schemas/index.js";
import type { TakeResult } from "../iterate/tasks/take-result.js";

/**
 * What the intake graph tells the chat while a message is handled. The REPL renders them as prose,
 * `--json` prints each as one line.
 */
export type IntakeEvent =
  | ({ type: "route" } & RouteDecision)
  | {
      type: "progress";
      task_id: string;
      node: string;
      phase: DevflowEvent["phase"];
      ok: boolean;
      outcome: string | null;
      run_state: string | null;
      attempt_id: string | null;
      duration_ms: number | null;
    }
  | { type: "questions"; task_id: string; questions: string[] }
  | { type: "handoff"; task_id: string; target: "insight" | "idea"; reason: string; path: string }
  | { type: "reply"; lane: Route; text: string }
  /** A lane's outcome for this turn (was `result`; the one `result` line now ends a --json chat, ADR 0049). */
  | { type: "lane_result"; lane: Route; id: string; outcome: string; artifact_path: string | null }
  /** An iterate task that reached a verdict: whether its checkout was kept and how to take the result. */
  | {
      type: "task_finished";
      task_id: string;
      verdict: string;
      branch: string | null;
      worktree_kept: boolean;
      worktree_end: FinishedCheckout["end"];
      worktree_idle_path?: string;
      take_result: TakeResult | null;
    }
  | { type: "stopped"; lane: Route; id: string; message: string }
  | { type: "error"; lane: Route | null; message: string };

export type EmitIntakeEvent = (event: IntakeEvent) => void;
