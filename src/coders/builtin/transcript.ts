import type { CoderRunLog, LoggedAnswer } from "../../agents/builtin-coder/index.js";
import { OutputCapture } from "../../process/output-capture.js";
import { MIN_EXCERPT_BYTES } from "../../util/truncate.js";

/** What the builtin coder's model last said: how the run ended is read from it. */
export interface AssistantTurn {
  text: string;
  toolCalls: number;
}

/**
 * coder_transcript.log of a builtin run: one JSON object per line (start, each assistant turn,
 * each tool result, guard decisions, model errors, end). It goes through the same capture as a
 * CLI's output, so it is redacted line by line (API keys, token patterns, the run's known
 * secrets) and capped, with the usual truncation note. It also keeps the counts the run's status
 * is decided from.
 */
export class CoderTranscript implements CoderRunLog {
  private readonly capture: OutputCapture;
  private closed = false;
  modelCalls = 0;
  /** Tool calls the model asked for, including ones the tool call limit refused. */
  toolCallsRequested = 0;
  lastAssistant: AssistantTurn | null = null;

  constructor(path: string, capBytes: number, knownSecrets: string[]) {
    this.capture = new OutputCapture({
      knownSecrets,
      transcriptPath: path,
      transcriptCapBytes: capBytes,
      // Only the file matters here; the in-memory excerpt is kept as small as it can be.
      excerptCapBytes: MIN_EXCERPT_BYTES,
    });
  }

  assistant(turn: LoggedAnswer): void {
    this.modelCalls++;
    this.toolCallsRequested += turn.toolCalls;
    this.lastAssistant = { text: turn.text, toolCalls: turn.toolCalls };
    this.record({
      type: "assistant",
      turn: this.modelCalls,
      text: turn.text,
      tool_calls: turn.toolCallList,
      usage: turn.usage,
    });
  }

  record(entry: { type: string } & Record<string, unknown>): void {
    if (this.closed) return;
    this.capture.write(
      "stdout",
      Buffer.from(`${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`),
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.capture.finish();
  }
}
