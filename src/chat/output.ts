import type { IntakeEvent } from "../lanes/intake/events.js";

/** What the chat itself says besides the intake events (banner, slash commands, the coder prompt). */
export type ChatEvent =
  | IntakeEvent
  | { type: "thread"; id: string; repo: string; turns: number; resumed: boolean }
  | { type: "command"; command: string; text: string; data?: unknown }
  | { type: "confirm"; task_id: string; coder: string; title: string; seam_command: string }
  | { type: "notice"; text: string }
  /** A question the chat reads the answer to from its input (a plan's approval); no newline. */
  | { type: "ask"; text: string }
  /** A plan run from the chat ended (its report is on stderr, like `devflow plan`'s). */
  | { type: "plan_finished"; plan_id: string; ran: "compose" | "iterate" | "not_run"; exit_code: number }
  /** Something the user should fix, though the chat goes on (the coder is not installed). */
  | { type: "warning"; message: string };

export type Write = (text: string) => void;

/**
 * Prose for people, or (`--json`) every event as one JSON line on stdout for scripts. Progress is
 * one line per finished lane node, plus a line when the coder starts (that is when Ctrl-C matters).
 */
export function chatRenderer(opts: {
  json: boolean;
  out: Write;
  err: Write;
  /** An iterate task's progress has a display of its own (the CLI's, ADR 0044): no lines here. */
  progressShown?: boolean;
}): (event: ChatEvent) => void {
  if (opts.json) return (event) => opts.out(`${JSON.stringify(event)}\n`);
  return (event) => {
    if (event.type === "progress" && opts.progressShown) return;
    const text = prose(event);
    if (text === null) return;
    if (event.type === "error" || event.type === "warning") opts.err(text);
    else opts.out(text);
  };
}

function prose(event: ChatEvent): string | null {
  switch (event.type) {
    case "thread":
      return event.resumed
        ? `devflow chat: thread ${event.id} on ${event.repo} (${event.turns} earlier message(s)). /help lists commands.\n`
        : `devflow chat: new thread ${event.id} on ${event.repo}. /help lists commands.\n`;
    case "route":
      return `[${event.route}] ${event.rationale} (confidence ${event.confidence.toFixed(2)})\n`;
    case "progress": {
      if (event.phase === "start")
        return event.node === "code"
          ? `  ${"code".padEnd(9)} … the coder is running (Ctrl-C stops it)\n`
          : null;
      if (event.phase === "info") return null;
      const mark = event.phase === "error" ? "✗" : event.ok ? "✓" : "•";
      const secs = event.duration_ms === null ? "" : ` ${(event.duration_ms / 1000).toFixed(1)}s`;
      return `  ${event.node.padEnd(9)} ${mark} ${event.outcome ?? ""}${secs}\n`;
    }
    case "reply":
      return `\n${event.text}\n\n`;
    case "command":
    case "notice":
      return `${event.text}\n`;
    case "ask":
      return event.text;
    case "plan_finished":
      return null;
    case "confirm":
      return `\nReady to start the coder (${event.coder}) on ${event.task_id}: ${event.title}\n  failing check: ${event.seam_command}\nStart it? [y/N] `;
    case "error":
      return `devflow: ${event.message}\n`;
    case "warning":
      return `devflow: warning: ${event.message} — change requests (the iterate lane) will fail until this is fixed; other messages still work.\n`;
    case "questions":
    case "handoff":
    case "lane_result":
    case "task_finished":
    case "stopped":
      // The lane's reply already says this in words.
      return null;
  }
}
