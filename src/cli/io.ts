/** The CLI's only contact with the terminal, so commands can be driven from tests. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
  setExitCode: (code: number) => void;
}

export function processIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    setExitCode: (code) => {
      process.exitCode = code;
    },
  };
}
