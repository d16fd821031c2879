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
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    errIsTTY: Boolean(process.stderr.isTTY),
    errColumns: () => process.stderr.columns,
    setExitCode: (code) => {
      process.exitCode = code;
    },
  };
}
