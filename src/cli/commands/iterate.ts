import { createInterface } from "node:readline/promises";
import { type Command, InvalidArgumentError, Option } from "commander";
import { DevflowError } from "../../errors/index.js";
import type { NeedsAnswers } from "../../lanes/outcome.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { humanProgress, jsonProgress } from "../progress.js";
import {
  addModelLimitOptions,
  type ModelLimitFlags,
  modelLimitsFromFlags,
  positiveSeconds,
} from "./limit-flags.js";

interface IterateFlags extends ModelLimitFlags {
  repo?: string;
  baseDir: string;
  maxIterations: number;
  model: string;
  coder: string;
  coderModel?: string;
  taskId?: string;
  resume?: boolean;
  replay?: string;
  record?: string;
  json?: boolean;
  yes?: boolean;
  testCmd?: string;
  seamRuns: number;
  timeout: number;
  maxEscalations: number;
  testTimeout?: number;
  maxRequestBytes?: number;
}

const positiveInt = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1`);
  return n;
};
const nonNegativeInt = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number ≥ 0`);
  return n;
};

export function registerIterate(program: Command, io: CliIO): void {
  const command = program
    .command("iterate")
    .description("drive a request to a verified commit on a task branch (the iterate lane)")
    .argument("[request...]", "what to change, in plain words")
    .option("-r, --repo <path|url>", "repository path or git URL (default: the current repo)")
    .option("-b, --base-dir <dir>", "where a git URL is cloned", ".")
    .option("-n, --max-iterations <N>", "judge attempts", positiveInt("--max-iterations"), 5)
    .option("-m, --model <name>", "model for framing, observation and judging", "gpt-4.1-mini")
    .option(
      "--coder <name>",
      "coder backend: junie, claude, codex, gemini, opencode, aider, builtin, command:<shell>",
      "junie",
    )
    .option("--coder-model <name>", "model the coder backend uses, when it takes one (default: its own)")
    .option("--task-id <id>", "task id (default: slug of the request)")
    .option("--resume", "continue a task that stopped or crashed, from its last checkpoint")
    .addOption(
      new Option("--replay <cassette>", "answer model calls from a cassette (offline)").conflicts("record"),
    )
    .option("--record <cassette>", "call the live model and save its answers as a cassette")
    .option("--json", "one JSON event per line on stdout")
    .option("--yes", "never prompt")
    .option("--test-cmd <command>", "regression test command (default: detected)")
    .option(
      "--seam-runs <N>",
      "times the seam is re-run per attempt; any red run fails it (a flake)",
      positiveInt("--seam-runs"),
      3,
    )
    .option(
      "--timeout <seconds>",
      "base coder timeout; escalations multiply it",
      positiveInt("--timeout"),
      900,
    )
    .option(
      "--max-escalations <N>",
      "coder timeout escalations (not judge attempts)",
      nonNegativeInt("--max-escalations"),
      2,
    )
    .option(
      "--test-timeout <seconds>",
      "limit per seam/regression test run (default: $DEVFLOW_TEST_TIMEOUT, else 300)",
      positiveSeconds("--test-timeout"),
    )
    .option(
      "--max-request-bytes <N>",
      "largest request taken (default: $DEVFLOW_MAX_REQUEST_BYTES, else 65536)",
      positiveInt("--max-request-bytes"),
    );
  addModelLimitOptions(command).action(async (words: string[], flags: IterateFlags) => {
    io.setExitCode(await iterateAction(words.join(" "), flags, io));
  });
}

async function iterateAction(request: string, flags: IterateFlags, io: CliIO): Promise<number> {
  const interactive = io.isTTY && !flags.yes && !flags.json;
  if (!request.trim() && !flags.resume) {
    throw new DevflowError(
      "REQUEST_EMPTY",
      'the request is empty: devflow iterate "what to change" (or --resume --task-id <id>)',
    );
  }
  if (flags.resume && !flags.taskId && !request.trim())
    throw new DevflowError("BAD_OPTION", "--resume needs --task-id <id> (or the original request)");
  const repo = flags.repo ?? (await defaultRepo(interactive));
  // The lane loads here, not at start-up: `--help` and usage errors stay fast (ADR 0042).
  const { iterateLane } = await import("../../lanes/iterate/run.js");
  const { answerLane } = await import("../../lanes/outcome.js");
  const { renderSummary } = await import("../summary.js");
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const lane = iterateLane({
      repo,
      baseDir: flags.baseDir,
      model: flags.model,
      coder: flags.coder,
      modelLimits: modelLimitsFromFlags(flags),
      ...(flags.maxRequestBytes === undefined ? {} : { maxRequestBytes: flags.maxRequestBytes }),
      mode: flags.replay ? "replay" : flags.record ? "record" : "live",
      ...(flags.replay || flags.record ? { cassettePath: flags.replay ?? flags.record } : {}),
      lane: {
        maxJudgeAttempts: flags.maxIterations,
        maxEscalations: flags.maxEscalations,
        baseTimeoutMs: flags.timeout * 1000,
        testCommand: flags.testCmd ?? null,
        seamRuns: flags.seamRuns,
        coderModel: flags.coderModel ?? null,
        ...(flags.testTimeout === undefined
          ? {}
          : { commandTimeoutMs: Math.round(flags.testTimeout * 1000) }),
      },
      onProgress: flags.json ? jsonProgress(io.out) : humanProgress(io.err),
      interactive,
      signal: controller.signal,
    });
    const first = await lane.run({
      request,
      ...(flags.taskId ? { taskId: flags.taskId } : {}),
      resume: Boolean(flags.resume),
    });
    // The same loop the chat runs across messages: needs_answers → ask → resume the same task.
    const outcome = await answerLane(
      first,
      async (q) => (interactive ? askQuestions(q, io) : null),
      lane.resume,
    );
    if (outcome.kind === "needs_answers") {
      // Only when a question went unanswered (the lane was interactive but nothing could ask).
      if (flags.json) io.out(`${JSON.stringify({ type: "needs_answers", ...outcome })}\n`);
      io.err(
        `\n${outcome.task_id} is waiting for answers:\n${outcome.questions.map((x) => `  - ${x}`).join("\n")}\nAnswer them: devflow iterate --resume --task-id ${outcome.task_id} (on a terminal)\n`,
      );
      return EXIT.blockedOrNeedsContext;
    }
    const { result } = outcome;
    if (flags.json) io.out(`${JSON.stringify({ type: "result", ...result })}\n`);
    else io.err(`\n${renderSummary(result)}`);
    return exitCodeFor(result.terminal.verdict);
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

async function defaultRepo(interactive: boolean): Promise<string> {
  const { assertGitRepo } = await import("../../workspace/index.js");
  try {
    return await assertGitRepo(process.cwd());
  } catch (error) {
    if (!interactive) throw error;
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = (await rl.question("Repository path or git URL: ")).trim();
      if (!answer) throw new DevflowError("BAD_OPTION", "no repository given: pass --repo <path|url>");
      return answer;
    } finally {
      rl.close();
    }
  }
}

async function askQuestions(q: NeedsAnswers, io: CliIO): Promise<string> {
  io.err(
    `\ndevflow needs more context for ${q.task_id}:\n${q.questions.map((x) => `  - ${x}`).join("\n")}\n`,
  );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question("Your answer: ")).trim();
  } finally {
    rl.close();
  }
}
