import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DynamicStructuredTool } from "langchain";
import { tool } from "langchain";
import { z } from "zod";
import type { MountPlan } from "../process/mount-namespace.js";
import { redactSecrets, secretsFromEnv } from "../util/redact.js";
import { limitToolOutput } from "./limit-output.js";
import { ToolRefusal } from "./tool-refusal.js";

/** What every tool run gets: where it may work, when to stop, and what the agent has created so far. */
export interface ToolContext {
  /** Absolute path of the worktree; every path a tool touches must resolve inside it. */
  worktree: string;
  signal: AbortSignal;
  /** Repo-relative paths (posix) of files the agent created; write_test_file adds to it. */
  written: Set<string>;
  /** Cap for one tool result in bytes (default MAX_TOOL_OUTPUT_BYTES). */
  maxOutputBytes?: number;
  /**
   * Set for a coder's tools (ADR 0031): run_command then runs confined like a coder CLI, with the
   * coder run's marker and, where mount namespaces work, its mount plan (the user's checkout
   * read-only, devflow's home hidden but for `worktree`).
   */
  confinement?: ToolConfinement;
}

export interface ToolConfinement {
  runMarker?: string;
  mounts?: MountPlan;
}

export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  description: string;
  schema: S;
  /** Told to the model when a result is truncated: how to ask for less. */
  narrowHint: string;
  run: (args: z.output<S>, ctx: ToolContext) => Promise<string>;
}

/** A tool bound to one agent run's context. */
export type AgentTool = DynamicStructuredTool;

/** A defined tool: its name, and how to bind it to a run. */
export interface ToolFactory {
  readonly name: string;
  bind(ctx: ToolContext): AgentTool;
}

export const MAX_TOOL_OUTPUT_BYTES = 16 * 1024;

const TOOLS_DIR = dirname(fileURLToPath(import.meta.url));

/** Loads src/tools/<name>.md: tool descriptions are prose for the model, kept out of code strings. */
export function loadToolDescription(name: string): string {
  return readFileSync(join(TOOLS_DIR, `${name}.md`), "utf8").trim();
}

/**
 * The one tool contract. The wrapper, not each tool, owns the behaviour every tool must share:
 * bad arguments come back as a readable tool result listing the problems (a thrown error would
 * reach the model as a stack trace, or end the run); results are redacted of secrets and capped
 * head+tail with a hint on narrowing; an aborted run stops the tool instead of letting it finish
 * unobserved.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): ToolFactory {
  // langchain validates a tool's input against its schema and throws before our code runs. So the
  // schema handed to langchain accepts any object, and carries the real parameters as JSON Schema
  // metadata (zod merges .meta() into the JSON Schema the model is shown); the zod check in the
  // tool body then decides, and answers bad arguments with the list of issues.
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(spec.schema, { io: "input" });
  const lenientSchema = z.looseObject({}).meta(parameters);

  return {
    name: spec.name,
    bind(ctx: ToolContext): AgentTool {
      return tool(
        async (input: unknown, config?: { signal?: AbortSignal }) => {
          const signal = config?.signal ? AbortSignal.any([ctx.signal, config.signal]) : ctx.signal;
          throwIfAborted(signal);
          const parsed = spec.schema.safeParse(input);
          if (!parsed.success) return describeInvalidArgs(spec.name, parsed.error);
          let output: string;
          try {
            output = await raceAbort(spec.run(parsed.data, { ...ctx, signal }), signal);
          } catch (error) {
            if (signal.aborted) throw abortError(signal);
            if (error instanceof ToolRefusal) return `Refused: ${error.message}`;
            return `${spec.name} failed: ${error instanceof Error ? error.message : String(error)}`;
          }
          // Tool results go to the model provider and into recorded cassettes: a .env file read or
          // a token echoed by a command must not travel with them.
          const redacted = redactSecrets(output, secretsFromEnv(process.env));
          return limitToolOutput(redacted, ctx.maxOutputBytes ?? MAX_TOOL_OUTPUT_BYTES, spec.narrowHint);
        },
        { name: spec.name, description: spec.description, schema: lenientSchema },
      );
    },
  };
}

function describeInvalidArgs(name: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "(arguments)";
    return `- ${where}: ${issue.message}`;
  });
  return [`Invalid arguments for ${name}:`, ...lines, `Fix the arguments and call ${name} again.`].join("\n");
}

function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error("The tool call was aborted.");
  error.name = "AbortError";
  return error;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/** Settles as soon as the signal aborts, even if the tool's own work ignores it. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
