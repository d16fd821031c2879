import type { ResultLine } from "../artifacts/schemas/index.js";
import type { ChatEnd } from "../chat/repl.js";
import { stopReason } from "../process/stop-signal.js";
import { EXIT } from "./exit-codes.js";
import { errorResultLine, plainResultLine } from "./json-output.js";

/**
 * The one `result` line a `devflow chat --json` process ends with (ADR 0049): its exit code, its
 * thread and how many turns failed; a chat left by Ctrl-C or SIGTERM carries the INTERRUPTED error
 * like a stopped `iterate`. Errors thrown before or around the conversation get theirs from runCli.
 */
export function chatResultLine(end: ChatEnd): ResultLine {
  const stopped = end.code === EXIT.interrupted ? "SIGINT" : end.code === EXIT.terminated ? "SIGTERM" : null;
  const base =
    stopped === null
      ? plainResultLine("chat", end.code)
      : errorResultLine("chat", stopReason(stopped), end.code);
  return {
    ...base,
    ...(end.threadId === null ? {} : { thread_id: end.threadId }),
    failed_turns: end.failedTurns,
  };
}
