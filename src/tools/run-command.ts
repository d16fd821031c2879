import { z } from "zod";
import { baseEnv } from "../process/env.js";
import { runProcess } from "../process/run-process.js";
import type { ToolFactory } from "./define-tool.js";
import { defineTool, loadToolDescription } from "./define-tool.js";

export interface RunCommandOptions {
  /** Used when the model gives no timeout (default 120 s). */
  defaultTimeoutMs?: number;
  /** Upper bound for a model-requested timeout (default 600 s). */
  maxTimeoutMs?: number;
  /** Output excerpt kept by the process runner (default 12 KiB, head+tail). */
  maxOutputBytes?: number;
}

export const RUN_COMMAND_DEFAULT_TIMEOUT_MS = 120_000;
export const RUN_COMMAND_MAX_TIMEOUT_MS = 600_000;
const DEFAULT_OUTPUT_BYTES = 12 * 1024;

/**
 * run_command: a shell command in the worktree root through the shared process runner, so it gets
 * its own process group, closed stdin, an allowlisted environment (no API keys) and a hard timeout.
 * For a coder (`ctx.confinement`, ADR 0031) it also runs confined like a coder CLI: its own PID
 * namespace and the coder's run marker, and the coder's mount plan where mount namespaces work.
 */
export function runCommandTool(options: RunCommandOptions = {}): ToolFactory {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? RUN_COMMAND_DEFAULT_TIMEOUT_MS;
  const maxTimeoutMs = Math.max(defaultTimeoutMs, options.maxTimeoutMs ?? RUN_COMMAND_MAX_TIMEOUT_MS);
  const maxExcerptBytes = options.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES;
  const schema = z.object({
    command: z
      .string()
      .min(1)
      .describe('Shell command run in the repository root, e.g. "npm test -- tests/cart.test.ts"'),
    timeout_seconds: z
      .number()
      .positive()
      .max(maxTimeoutMs / 1000)
      .optional()
      .describe(`Default ${defaultTimeoutMs / 1000}`),
  });

  return defineTool({
    name: "run_command",
    description: loadToolDescription("run_command"),
    schema,
    narrowHint:
      "run a narrower command (a single test file or test name) or pipe the output through grep/tail",
    async run(args, ctx) {
      const timeoutMs =
        args.timeout_seconds !== undefined ? Math.round(args.timeout_seconds * 1000) : defaultTimeoutMs;
      const result = await runProcess({
        command: args.command,
        shell: true,
        cwd: ctx.worktree,
        env: baseEnv(),
        stdin: "closed",
        timeoutMs,
        signal: ctx.signal,
        maxExcerptBytes,
        ...(ctx.confinement
          ? {
              confine: true,
              ...(ctx.confinement.runMarker !== undefined ? { runMarker: ctx.confinement.runMarker } : {}),
              ...(ctx.confinement.mounts !== undefined ? { mounts: ctx.confinement.mounts } : {}),
            }
          : {}),
      });
      const lines = [`$ ${args.command}`];
      if (result.spawnError) {
        lines.push(`The command could not be started: ${result.spawnError}`);
        return lines.join("\n");
      }
      if (result.timedOut) {
        lines.push(
          `timed out after ${timeoutMs / 1000} s: the command was killed, so its exit code says nothing about the problem. Run something narrower or raise timeout_seconds.`,
        );
      } else if (result.aborted) {
        lines.push("aborted: devflow stopped the run.");
      } else if (result.exitCode === null) {
        lines.push(`killed by signal ${result.signal ?? "unknown"}`);
      }
      lines.push(`exit code: ${result.exitCode ?? "none"}`);
      const size = result.outputTruncated ? ` (${result.totalOutputBytes} bytes, middle cut)` : "";
      lines.push(`--- output (stdout and stderr)${size} ---`);
      lines.push(result.output === "" ? "(no output)" : result.output);
      return lines.join("\n");
    },
  });
}
