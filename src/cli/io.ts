/** The CLI's only contact with the terminal, so commands can be driven from tests. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
  /** stderr alone is a terminal: progress is a live line there (absent in tests: plain lines). */
  errIsTTY?: boolean;
  /** stderr's width in columns while it is a terminal. */
  errColumns?: () => number | undefined;
  setExitCode: (code: number) => void;
}

export function processIO(): CliIO {
  let readerGone = false;
  // `devflow … | head -1`: once the reader has gone, a write fails with EPIPE, which Node raises as
  // an unhandled 'error' (a stack trace, exit 1, a run cut off at a random point). Instead the
  // command stops the way SIGTERM stops it, where one owns the stop signals (a run: its coder
  // tree ended, nothing committed, resumable), and otherwise leaves quietly with 0: the reader
  // took what it wanted.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE" && err.code !== "ERR_STREAM_DESTROYED") throw err;
    if (readerGone) return;
    readerGone = true;
    if (process.listenerCount("SIGTERM") > 0) process.emit("SIGTERM", "SIGTERM");
    else process.exit(0);
  });
  return {
    out: (t) => {
      if (!readerGone) process.stdout.write(t);
    },
    err: (t) => process.stderr.write(t),
    isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    errIsTTY: Boolean(process.stderr.isTTY),
    errColumns: () => process.stderr.columns,
    setExitCode: (code) => {
      process.exitCode = code;
    },
  };
}
