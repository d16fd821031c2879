import { runCli } from "../../src/cli/program.js";

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the real CLI program in-process with captured output (no TTY: never prompts). */
export async function cli(...argv: string[]): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    isTTY: false,
    setExitCode: () => {},
  });
  return { code, out, err };
}
