import { createInterface, type Interface } from "node:readline";

/**
 * Lines from the terminal or from piped stdin, one at a time, for a loop that also needs a line in
 * the middle of a turn (the coder confirmation). Lines typed or piped while a turn runs wait in
 * order. Ctrl-C is reported to `onInterrupt` instead of killing the process: in a terminal it
 * arrives as readline's SIGINT (raw mode), with piped stdin as the process signal.
 */
export class LineReader {
  private readonly rl: Interface;
  private readonly queue: string[] = [];
  private waiting: ((line: string | null) => void)[] = [];
  private closed = false;
  private interruptHandler: () => void = () => {};
  private readonly onProcessSigint = () => this.interruptHandler();

  constructor(
    private readonly input: NodeJS.ReadableStream,
    output: NodeJS.WritableStream,
    readonly terminal: boolean,
  ) {
    this.rl = createInterface({ input, ...(terminal ? { output } : {}), terminal });
    this.rl.on("line", (line) => {
      const wake = this.waiting.shift();
      if (wake) wake(line);
      else this.queue.push(line);
    });
    this.rl.on("close", () => {
      this.closed = true;
      for (const wake of this.waiting.splice(0)) wake(null);
    });
    this.rl.on("SIGINT", () => this.interruptHandler());
    process.on("SIGINT", this.onProcessSigint);
  }

  onInterrupt(handler: () => void): void {
    this.interruptHandler = handler;
  }

  /** Shows the prompt (terminal only: piped input gets no prompt noise). */
  prompt(text: string): void {
    if (!this.terminal) return;
    this.rl.setPrompt(text);
    this.rl.prompt();
  }

  /** The next line, or null once the input has ended (Ctrl-D, end of the pipe). Rejects when `signal` aborts. */
  next(signal?: AbortSignal): Promise<string | null> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const wake = (line: string | null) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
      const onAbort = () => {
        this.waiting = this.waiting.filter((w) => w !== wake);
        reject(signal?.reason ?? new Error("aborted"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(wake);
    });
  }

  /**
   * Stops reading the input until `resume()`: an editor started meanwhile owns the terminal (in
   * cooked mode, as a shell would leave it), and no key typed into it is read as a chat line.
   */
  suspend(): void {
    this.rl.pause();
    this.setRaw(false);
  }

  resume(): void {
    this.setRaw(true);
    this.rl.resume();
  }

  private setRaw(on: boolean): void {
    const tty = this.input as NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (on: boolean) => void };
    if (this.terminal && tty.isTTY && tty.setRawMode) tty.setRawMode(on);
  }

  close(): void {
    process.off("SIGINT", this.onProcessSigint);
    this.rl.close();
  }
}
