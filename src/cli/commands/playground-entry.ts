import { pathToFileURL } from "node:url";
import { codeFile } from "../../util/paths.js";
import type { CliIO } from "../io.js";

/** The flags of `devflow playground`, as commander parses them. */
export interface PlaygroundFlags {
  scenarioName?: string[];
  live?: boolean;
  /** true: record into scenarios/cassettes; a string: into that directory. */
  record?: boolean | string;
  json?: boolean;
  report: string;
  concurrency: number;
  model: string;
  coder?: string;
  keep?: boolean;
  list?: boolean;
}

export type PlaygroundMode = "replay" | "live" | "record";

/** What the CLI lends the playground: its output, and the readiness check of live/record runs. */
export interface PlaygroundCommandContext {
  io: CliIO;
  /** Throws (a configuration error) when the endpoint or the coder a live run needs is missing. */
  assertReady(mode: PlaygroundMode, model: string, coder: string | null): Promise<void>;
}

/** How a playground command ended; the CLI turns it into an exit code or a usage error. */
export type PlaygroundCommandOutcome =
  | { kind: "listed" }
  | { kind: "graded"; passed: number; failed: number }
  | { kind: "unknown_scenario"; message: string };

export type PlaygroundCommand = (
  flags: PlaygroundFlags,
  ctx: PlaygroundCommandContext,
) => Promise<PlaygroundCommandOutcome>;

/**
 * The scenario suite lives in the top-level playground/, which src/ never imports (ADR 0015): the
 * command loads it at run time from the package root, the way agents' prompts and the scenario
 * cassettes are read, and checks that it exports `runPlaygroundCommand`.
 */
export const PLAYGROUND_ENTRY = codeFile("playground/command");

export async function loadPlaygroundCommand(entry = PLAYGROUND_ENTRY): Promise<PlaygroundCommand> {
  const loaded: unknown = await import(pathToFileURL(entry).href);
  if (!hasCommand(loaded)) throw new Error(`${entry} does not export a runPlaygroundCommand function`);
  return loaded.runPlaygroundCommand;
}

function hasCommand(value: unknown): value is { runPlaygroundCommand: PlaygroundCommand } {
  return (
    typeof value === "object" &&
    value !== null &&
    "runPlaygroundCommand" in value &&
    typeof value.runPlaygroundCommand === "function"
  );
}
