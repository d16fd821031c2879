import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { createRedactor, createStreamRedactor, type StreamRedactor } from "../util/redact.js";
import { type Excerpt, HeadTailBuffer, utf8Prefix } from "../util/truncate.js";
import { LineSplitter } from "./line-splitter.js";

export interface OutputCaptureOptions {
  knownSecrets: string[];
  transcriptPath?: string;
  transcriptCapBytes: number;
  excerptCapBytes: number;
  onStdoutLine?: (line: string) => void;
}

/** One child stream: bytes → UTF-8 text (never split inside a character) → redacted complete lines. */
interface StreamState {
  decoder: StringDecoder;
  redactor: StreamRedactor;
}

/**
 * Where a child's stdout and stderr go: a redacted, capped transcript file, a redacted head+tail
 * excerpt in memory, an exact byte count, and (stdout only) the line callback. Each stream is
 * redacted per line on its own, so interleaving happens at line granularity and a line of one
 * stream is never spliced into a line of the other.
 */
export class OutputCapture {
  private readonly excerptBuffer: HeadTailBuffer;
  private readonly streams: Record<"stdout" | "stderr", StreamState>;
  private readonly lines: { splitter: LineSplitter; decoder: StringDecoder } | null;
  private transcriptFd: number | null = null;
  private transcriptBytes = 0;
  private transcriptTruncated = false;
  private rawBytes = 0;
  private readonly redactLine: (text: string) => string;
  private lineFailure: { error: unknown } | null = null;

  constructor(private readonly options: OutputCaptureOptions) {
    this.excerptBuffer = new HeadTailBuffer(options.excerptCapBytes);
    this.redactLine = createRedactor(options.knownSecrets);
    const stream = (): StreamState => ({
      decoder: new StringDecoder("utf8"),
      redactor: createStreamRedactor(options.knownSecrets),
    });
    this.streams = { stdout: stream(), stderr: stream() };
    const onLine = options.onStdoutLine;
    this.lines = onLine
      ? {
          decoder: new StringDecoder("utf8"),
          splitter: new LineSplitter((line) => this.deliverLine(onLine, line)),
        }
      : null;
    if (options.transcriptPath !== undefined) {
      mkdirSync(dirname(options.transcriptPath), { recursive: true });
      this.transcriptFd = openSync(options.transcriptPath, "w");
    }
  }

  get totalBytes(): number {
    return this.rawBytes;
  }

  /** The first error thrown by onStdoutLine (the callback is not called again after it). */
  get stdoutLineFailure(): { error: unknown } | null {
    return this.lineFailure;
  }

  write(stream: "stdout" | "stderr", chunk: Buffer): void {
    this.rawBytes += chunk.length;
    const state = this.streams[stream];
    this.emit(state.redactor.push(state.decoder.write(chunk)));
    if (stream === "stdout" && this.lines) this.lines.splitter.push(this.lines.decoder.write(chunk));
  }

  /** Adds devflow's own line (already safe) to the transcript and excerpt. */
  note(line: string): void {
    this.emit(`${line}\n`);
  }

  /** Flushes partial lines, closes the transcript and returns the excerpt. Call once. */
  finish(): Excerpt {
    for (const state of Object.values(this.streams)) {
      this.emit(state.redactor.push(state.decoder.end()) + state.redactor.flush());
    }
    if (this.lines) {
      this.lines.splitter.push(this.lines.decoder.end());
      this.lines.splitter.end();
    }
    if (this.transcriptFd !== null) {
      if (this.transcriptTruncated) {
        writeSync(this.transcriptFd, `\n[transcript truncated after ${this.transcriptBytes} bytes]\n`);
      }
      closeSync(this.transcriptFd);
      this.transcriptFd = null;
    }
    return this.excerptBuffer.result();
  }

  private emit(text: string): void {
    if (text === "") return;
    this.excerptBuffer.push(text);
    this.appendToTranscript(text);
  }

  private appendToTranscript(text: string): void {
    if (this.transcriptFd === null || this.transcriptTruncated) return;
    const bytes = Buffer.from(text, "utf8");
    const room = this.options.transcriptCapBytes - this.transcriptBytes;
    const part = bytes.length <= room ? bytes : utf8Prefix(bytes, room);
    if (part.length > 0) writeSync(this.transcriptFd, part);
    this.transcriptBytes += part.length;
    if (part.length < bytes.length) this.transcriptTruncated = true;
  }

  private deliverLine(onLine: (line: string) => void, line: string): void {
    if (this.lineFailure !== null) return;
    try {
      // Callers persist what they parse (final messages, errors): they get redacted lines too.
      onLine(this.redactLine(line));
    } catch (error) {
      this.lineFailure = { error };
    }
  }
}
