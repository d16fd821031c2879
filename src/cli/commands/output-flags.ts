import { type Command, InvalidArgumentError, Option } from "commander";
import { DevflowError } from "../../errors/index.js";
import { DEFAULT_LINE_WIDTH } from "../bounded-line.js";
import { colourWanted } from "../colour.js";
import type { CliIO } from "../io.js";

/** How a person sees a run on stderr: the flags `iterate` and `demo` take (issue 11). */
export interface OutputFlags {
  /** false with --no-color (commander's negated option). */
  color?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  progressInterval?: number;
}

export type Verbosity = "quiet" | "normal" | "verbose";

export interface OutputSettings {
  colour: boolean;
  verbosity: Verbosity;
  /** A live, redrawn line (stderr is a terminal) or plain appended lines. */
  live: boolean;
  /** Plain mode: milliseconds between "still running" lines; 0 for none. */
  heartbeatMs: number;
  /** Plain mode: the longest line printed. */
  width: number;
}

export const DEFAULT_PROGRESS_INTERVAL_S = 30;

const seconds = (name: string) => (value: string) => {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`${name} must be a number of seconds ≥ 0 (0: no heartbeat lines)`);
  return n;
};

export function addOutputOptions(command: Command): Command {
  return command
    .option("--no-color", "no colour on stderr (also NO_COLOR=1 or FORCE_COLOR=0; FORCE_COLOR=1 forces it)")
    .addOption(new Option("-q, --quiet", "print only the final summary and errors").conflicts("verbose"))
    .option("--verbose", "also print each node's details and the artifact paths")
    .option(
      "--progress-interval <seconds>",
      "when stderr is not a terminal, a 'still running' line this often (default: $DEVFLOW_PROGRESS_INTERVAL, else 30; 0: none)",
      seconds("--progress-interval"),
    );
}

/** The settings from the flags, then the environment, then the defaults. */
export function outputSettings(
  flags: OutputFlags,
  io: CliIO,
  env: Readonly<Record<string, string | undefined>> = process.env,
): OutputSettings {
  const isTTY = io.errIsTTY ?? false;
  return {
    colour: colourWanted({ flag: flags.color, env, isTTY }),
    verbosity: flags.quiet ? "quiet" : flags.verbose ? "verbose" : "normal",
    live: isTTY,
    heartbeatMs: Math.round(1000 * (flags.progressInterval ?? intervalFromEnv(env))),
    width: Math.max(40, Number(env.DEVFLOW_PROGRESS_WIDTH) || DEFAULT_LINE_WIDTH),
  };
}

function intervalFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.DEVFLOW_PROGRESS_INTERVAL;
  if (raw === undefined || raw.trim() === "") return DEFAULT_PROGRESS_INTERVAL_S;
  try {
    return seconds("DEVFLOW_PROGRESS_INTERVAL")(raw);
  } catch (error) {
    throw new DevflowError("BAD_OPTION", `${(error as Error).message}, got "${raw}"`);
  }
}
