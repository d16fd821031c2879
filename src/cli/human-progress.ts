import { join } from "node:path";
import { createLogUpdate } from "log-update";
import type { DevflowEvent } from "../artifacts/schemas/index.js";
import type { NodeReport, ProgressSink } from "../lanes/iterate/lane/reporter.js";
import { boundLine, wrapText } from "./bounded-line.js";
import { type Palette, palette } from "./colour.js";
import type { OutputSettings } from "./commands/output-flags.js";
import type { CliIO } from "./io.js";

/** The human progress display of one run: the lane's sink, plus what the command calls around it. */
export interface HumanProgress {
  sink: ProgressSink;
  /** Takes the live line down until the next event (before a question is asked on the terminal). */
  pause(): void;
  /** Takes the live line down and stops the timers; call before the summary or an error is printed. */
  close(): void;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const REDRAW_MS = 200;
const MAX_DETAIL_KEYS = 8;
/** A finished node's outcome (a gate's reasons run to hundreds of characters) wraps to this many lines. */
const MAX_OUTCOME_LINES = 3;
const CONTINUATION = " ".repeat(12);

/** `9s`, `1m05s`, `2h03m`. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/**
 * `frame     ✓ task_artifact r1 (error_fix) 1.2s 340 tok`: the line a finished node leaves. A long
 * outcome (a gate's reasons run to hundreds of characters) wraps to at most MAX_OUTCOME_LINES lines
 * of `width`, then says where all of it is.
 */
export function nodeLine(report: NodeReport, c: Palette, width: number, wholeAt: string | null): string {
  const mark = report.phase === "error" ? c.red("✗") : report.ok ? c.green("✓") : c.yellow("•");
  const secs = report.durationMs === null ? "" : ` ${(report.durationMs / 1000).toFixed(1)}s`;
  const cost = report.tokens ? ` ${report.tokens} tok` : "";
  const head = `${report.node.padEnd(9)} `;
  // Wrapped before colouring, so the width counts what is seen; the time and tokens end the first line.
  const room = width - secs.length - cost.length + CONTINUATION.length - head.length - 2;
  const [first = "", ...rest] = wrapText(
    report.outcome ?? "",
    room,
    CONTINUATION,
    wholeAt,
    MAX_OUTCOME_LINES,
  );
  const more = rest.map((l) => `${CONTINUATION}${l}`);
  return [`${head}${mark} ${first}${c.dim(`${secs}${cost}`)}`, ...more].join("\n");
}

/**
 * Progress on stderr for a person (issue 11). On a terminal: finished nodes as permanent lines and,
 * below them, a live line (log-update) with a spinner, the running node, its and the run's elapsed
 * time, the attempt, and for the coder its transcript path and latest activity. Elsewhere: the same
 * permanent lines, a start line for each coder run with its transcript path, and a heartbeat line
 * every `heartbeatMs` while a node runs, so a log shows the run is alive. `quiet` prints nothing
 * (the summary and errors are the command's); `verbose` adds node details and artifact paths.
 */
export function humanProgress(
  io: CliIO,
  settings: OutputSettings,
  clock: () => number = Date.now,
): HumanProgress {
  const c = palette(settings.colour);
  const quiet = settings.verbosity === "quiet";
  const verbose = settings.verbosity === "verbose";
  const runStarted = clock();
  let current: { node: string; started: number } | null = null;
  let attemptId: string | null = null;
  let coder: { transcript: string; run: number } | null = null;
  let activity: string | null = null;
  let artifactDir: string | null = null;
  const eventsFile = () => (artifactDir ? join(artifactDir, "events.jsonl") : null);
  // A pseudo-terminal without a window size reports 0 columns: a width of -1 cut every line to
  // "…" (chat tasks in python's pty). 0 means unknown, like undefined.
  const width = () => (settings.live ? (io.errColumns?.() || 80) - 1 : settings.width);

  const live = settings.live && !quiet ? liveLine(io) : null;
  let timer: NodeJS.Timeout | null = null;
  const startTimer = () => {
    if (timer !== null || quiet) return;
    if (live) timer = setInterval(render, REDRAW_MS);
    else if (settings.heartbeatMs > 0) timer = setInterval(heartbeat, settings.heartbeatMs);
    timer?.unref();
  };
  const stopTimer = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };

  /** A line that stays: above the live line on a terminal, appended elsewhere. */
  const permanent = (text: string) => {
    if (quiet) return;
    live?.clear();
    io.err(`${text}\n`);
    render();
  };

  const status = (now: number) => {
    if (current === null) return "";
    const parts = [`${elapsed(now - current.started)} (run ${elapsed(now - runStarted)})`];
    if (attemptId) parts.push(attemptId);
    if (current.node === "code" && coder && coder.run > 1) parts.push(`coder run ${coder.run}`);
    return parts.join(" · ");
  };

  function render(): void {
    if (!live) return;
    if (current === null) {
      live.clear();
      return;
    }
    const now = clock();
    const w = width();
    const fitWidth = (text: string) => boundLine(text, w);
    const spinner = SPINNER[Math.floor(now / 100) % SPINNER.length] ?? "-";
    const lines = [`${c.cyan(spinner)} ${fitWidth(`${current.node.padEnd(9)} ${status(now)}`)}`];
    if (current.node === "code" && coder) {
      if (activity) lines.push(`  ${c.dim("↳")} ${fitWidth(activity).slice(0, Math.max(0, w - 4))}`);
      lines.push(c.dim(fitWidth(`  transcript ${coder.transcript}`)));
    }
    live(lines.join("\n"));
  }

  function heartbeat(): void {
    if (current === null) return;
    const last = current.node === "code" && activity ? `, last: ${activity}` : "";
    io.err(`${boundLine(`${current.node.padEnd(9)} … running ${status(clock())}${last}`, width())}\n`);
  }

  const details = (report: NodeReport) => {
    const lines: string[] = [];
    if (report.attemptId && artifactDir)
      lines.push(`attempt dir: ${join(artifactDir, "attempts", report.attemptId)}`);
    for (const [key, value] of Object.entries(report.detail).slice(0, MAX_DETAIL_KEYS)) {
      lines.push(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    }
    return lines.map((l) => c.dim(boundLine(`    ${l}`, width())));
  };

  const sink = ((_event: DevflowEvent, report: NodeReport) => {
    startTimer();
    if (report.phase === "start") {
      current = { node: report.node, started: clock() };
      if (report.node === "code") {
        coder = null;
        activity = null;
      }
      if (verbose) permanent(c.dim(`${report.node.padEnd(9)} … started`));
      else render();
      return;
    }
    if (report.attemptId) attemptId = report.attemptId;
    if (report.phase !== "info" && current?.node === report.node) current = null;
    permanent(nodeLine(report, c, width(), eventsFile()));
    if (verbose) for (const line of details(report)) permanent(line);
  }) as ProgressSink;

  sink.live = {
    artifactDir(dir) {
      artifactDir = dir;
      if (verbose) permanent(c.dim(`artifacts ${dir}`));
    },
    coderStarted(run) {
      attemptId = run.attemptId;
      coder = { transcript: run.transcript, run: run.run };
      activity = null;
      // A terminal shows the transcript on the live line; a log needs a line of its own.
      if (!live) {
        const again = run.run > 1 ? ` (coder run ${run.run}, timeout ${elapsed(run.timeoutMs)})` : "";
        permanent(`code      … ${run.attemptId} started${again}, transcript: ${run.transcript}`);
      } else render();
    },
    coderActivity(text) {
      activity = text;
    },
  };

  return {
    sink,
    pause() {
      current = null;
      live?.clear();
    },
    close() {
      stopTimer();
      current = null;
      live?.clear();
    },
  };
}

/** log-update over the CLI's stderr (so the redaction boundary still sees every byte). */
function liveLine(io: CliIO) {
  const stream = {
    isTTY: true,
    // 0 (a pseudo-terminal without a window size) means unknown: log-update would wrap at 0 columns.
    get columns() {
      return io.errColumns?.() || 80;
    },
    write(text: string) {
      io.err(text);
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  // showCursor: log-update would otherwise hide the cursor on process.stderr directly and rely on an
  // exit hook to show it again; a line that is only redrawn needs neither.
  return createLogUpdate(stream, { showCursor: true });
}
