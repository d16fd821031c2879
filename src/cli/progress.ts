import type { DevflowEvent } from "../artifacts/schemas/index.js";
import type { NodeReport } from "../lanes/iterate/lane/reporter.js";
import { eventLine, writeLine } from "./json-output.js";

export type Out = (text: string) => void;

/** `frame ✓ task_artifact r1 (error_fix) 1.2s`: one line per finished node on stderr. */
export function humanProgress(err: Out) {
  return (_event: DevflowEvent, report: NodeReport) => {
    if (report.phase === "start") return;
    const mark = report.phase === "error" ? "✗" : report.ok ? "✓" : "•";
    const secs = report.durationMs === null ? "" : ` ${(report.durationMs / 1000).toFixed(1)}s`;
    const cost = report.tokens ? ` ${report.tokens} tok` : "";
    err(`${report.node.padEnd(9)} ${mark} ${report.outcome ?? ""}${secs}${cost}\n`);
  };
}

/** --json: every event as one JSON line on stdout, for scripts. */
export function jsonProgress(out: Out) {
  return (event: DevflowEvent) => writeLine(out, eventLine(event));
}
