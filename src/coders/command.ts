import { constants } from "node:fs";
import { access, mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { baseEnv } from "../process/env.js";
import { runProcess } from "../process/run-process.js";
import type { ProcessRunResult } from "../process/types.js";
import { excerpt, OMITTED_MARKER_LINE } from "../util/truncate.js";
import { reportActivity } from "./activity.js";
import {
  CODER_GROUP_FILE,
  type CoderBackend,
  type CoderOutcome,
  type CoderProbe,
  type CoderRunRequest,
  type CoderRunResult,
  coderUnavailableError,
} from "./contract.js";

export const COMMAND_CODER_PREFIX = "command:";
const PROMPT_FILE = "coder_prompt.md";
const TRANSCRIPT_FILE = "coder_transcript.log";
const SHELL = "/bin/sh";
const FINAL_MESSAGE_LINES = 20;
const FINAL_MESSAGE_BYTES = 4096;
const ERROR_LINES = 10;
const ERROR_BYTES = 2048;

/** The last `count` non-empty lines of the output's tail (the part after an omission marker). */
function lastLines(output: string, count: number, maxBytes: number): string {
  const parts = output.split(OMITTED_MARKER_LINE);
  const tail = parts[parts.length - 1] ?? "";
  const lines = tail.split("\n").filter((line) => line.trim() !== "");
  return excerpt(lines.slice(-count).join("\n"), maxBytes).text;
}

function outcome(run: ProcessRunResult, timeoutMs: number): CoderOutcome {
  if (run.spawnError !== null) return { status: "error", error: run.spawnError };
  if (run.timedOut) {
    return {
      status: "timeout",
      error: `command did not finish within ${timeoutMs} ms; its process group was killed`,
    };
  }
  if (run.aborted)
    return { status: "aborted", error: "the run was aborted; the command's process group was killed" };
  if (run.exitCode === 0) return { status: "ok", error: null };
  const how =
    run.exitCode !== null ? `exited with code ${run.exitCode}` : `was killed by ${run.signal ?? "a signal"}`;
  const last = lastLines(run.output, ERROR_LINES, ERROR_BYTES);
  return {
    status: "error",
    error: last === "" ? `command ${how} (no output)` : `command ${how}; last output:\n${last}`,
  };
}

/**
 * A coder that is any shell command: `command:<shell>`. It runs with `sh -c` in the worktree,
 * stdin closed, and finds the prompt in the file named by DEVFLOW_PROMPT_FILE. Exit 0 is `ok`
 * (the command has no structured result to consult); the diff is judged by the verifiers anyway.
 */
export function createCommandCoder(shellCommand: string): CoderBackend {
  const command = shellCommand.trim();
  if (command === "") {
    throw coderUnavailableError(
      "CODER_UNKNOWN",
      `the "${COMMAND_CODER_PREFIX}" coder needs a shell command after the colon`,
      `write it as ${COMMAND_CODER_PREFIX}<shell command>, e.g. "${COMMAND_CODER_PREFIX}./scripts/fix.sh"`,
    );
  }
  const name = `${COMMAND_CODER_PREFIX}${command}`;

  return {
    name,

    async probe(): Promise<CoderProbe> {
      try {
        await access(SHELL, constants.X_OK);
        return { name, installed: true, version: null, hint: null };
      } catch {
        return {
          name,
          installed: false,
          version: null,
          hint: `the command coder runs through ${SHELL}; install a POSIX shell there`,
        };
      }
    },

    async run(request: CoderRunRequest): Promise<CoderRunResult> {
      const attemptDir = resolve(request.attemptDir);
      const scratchDir = resolve(request.scratchDir);
      const worktree = resolve(request.worktree);
      await mkdir(attemptDir, { recursive: true });
      await mkdir(scratchDir, { recursive: true });
      // The prompt file lives in the scratch dir: its path is the only one the coder is told besides the worktree.
      const promptFile = join(scratchDir, PROMPT_FILE);
      await writeFile(promptFile, request.prompt, "utf8");
      const transcriptPath = join(attemptDir, TRANSCRIPT_FILE);
      const env = {
        ...baseEnv(),
        ...request.env,
        DEVFLOW_PROMPT_FILE: promptFile,
        DEVFLOW_WORKTREE: worktree,
        ...(request.model !== undefined ? { DEVFLOW_MODEL: request.model } : {}),
      };
      const run = await runProcess({
        command,
        shell: true,
        cwd: worktree,
        env,
        stdin: "closed",
        timeoutMs: request.timeoutMs,
        transcriptPath,
        groupIdFile: join(request.attemptDir, CODER_GROUP_FILE),
        confine: true,
        ...(request.runMarker !== undefined ? { runMarker: request.runMarker } : {}),
        ...(request.mounts !== undefined ? { mounts: request.mounts } : {}),
        ...(request.signal !== undefined ? { signal: request.signal } : {}),
        // No event stream: the command's latest stdout line is its activity (redacted by the runner).
        ...(request.onActivity !== undefined ? { onStdoutLine: reportActivity(request.onActivity) } : {}),
      });
      return {
        ...outcome(run, request.timeoutMs),
        exitCode: run.exitCode,
        finalMessage: lastLines(run.output, FINAL_MESSAGE_LINES, FINAL_MESSAGE_BYTES),
        transcriptPath,
        durationMs: run.durationMs,
        usage: null,
      };
    },
  };
}
