import { type Command, InvalidArgumentError, Option } from "commander";
import type { ResolvedConfig } from "../../config/index.js";
import { DevflowError } from "../../errors/index.js";
import type { NeedsAnswers } from "../../lanes/outcome.js";
import { shellWord } from "../../util/command-line.js";
import { unusedAnswersWarning } from "../cassette-leftovers.js";
import { ITERATE_HELP } from "../command-help.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import { finishRun } from "../finish-run.js";
import { humanProgress } from "../human-progress.js";
import type { CliIO } from "../io.js";
import { iterateResultLine, pausedResultLine, stoppedResultLine, writeLine } from "../json-output.js";
import { jsonProgress } from "../progress.js";
import { resumeCommandLine } from "../resume-command.js";
import { StopSignals } from "../signals.js";
import { taskRepo } from "../task-repo.js";
import { readTerminalLine } from "../terminal-line.js";
import { commandConfig } from "./command-config.js";
import { addModelLimitOptions, type ModelLimitFlags, positiveSeconds } from "./limit-flags.js";
import { addOutputOptions, type OutputFlags, outputSettings } from "./output-flags.js";
import { summaryStyle } from "./summary-style.js";

interface IterateFlags extends ModelLimitFlags, OutputFlags {
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
  /** false with --no-input. */
  input: boolean;
  yes?: boolean;
  testCmd?: string;
  seamRuns: number;
  timeout: number;
  maxEscalations: number;
  testTimeout?: number;
  maxRequestBytes?: number;
  keepWorktree?: boolean;
}

/** `--yes` meant "never prompt" here but "approve" in the chat (issue 11); it keeps working. */
export const YES_ON_ITERATE =
  "--yes on iterate is deprecated: it means --no-input (never prompt; questions end the run with exit 3); in devflow chat --yes approves starting coders";

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
    .addHelpText("after", ITERATE_HELP)
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
    .option(
      "--keep-worktree",
      "keep the coder's checkout of a finished task (default: removed; the branch stays)",
    )
    .option("--no-input", "never prompt: questions end the run with exit 3, a re-plan is declined")
    .option("--yes", "deprecated here: use --no-input (--yes approves coder starts in devflow chat)")
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
  addOutputOptions(addModelLimitOptions(command)).action(async (words: string[], flags: IterateFlags) => {
    io.setExitCode(await iterateAction(words.join(" "), flags, io, command));
  });
}

async function iterateAction(
  request: string,
  flags: IterateFlags,
  io: CliIO,
  command: Command,
): Promise<number> {
  if (flags.yes) io.err(`devflow: ${YES_ON_ITERATE}\n`);
  const interactive = io.isTTY && flags.input && !flags.yes && !flags.json;
  if (!request.trim() && !flags.resume) {
    throw new DevflowError(
      "REQUEST_EMPTY",
      'the request is empty: devflow iterate "what to change" (or --resume --task-id <id>)',
    );
  }
  if (flags.resume && !flags.taskId && !request.trim())
    throw new DevflowError("BAD_OPTION", "--resume needs --task-id <id> (or the original request)");
  // A bad DEVFLOW_MAX_IDLE_* fails here, not after the run it would have spoiled the end of.
  (await import("../../lanes/iterate/idle-limits-env.js")).checkIdleLimitsEnv(process.env);
  const repo = flags.repo ?? (await defaultRepo(interactive));
  // The lane loads here, not at start-up: `--help` and usage errors stay fast (ADR 0042).
  const { iterateLane } = await import("../../lanes/iterate/run.js");
  const { answerLane } = await import("../../lanes/outcome.js");
  const { renderSummary } = await import("../summary.js");
  // Defaults < user file < repo file < env < flags (ADR 0047); a URL's config is never read.
  const { isGitUrl } = await import("../../workspace/git-url.js");
  const { runSettings } = await import("../../config/index.js");
  const resolved = await commandConfig(command, isGitUrl(repo) ? null : repo);
  if (flags.resume && flags.taskId && !isGitUrl(repo))
    await checkResumedCoder(repo, flags.taskId, resolved.values["coder.backend"], resolved.sources);
  const config = runSettings(resolved.values, process.env);
  const output = outputSettings(flags, io);
  const human = flags.json ? null : humanProgress(io, output);
  // Ctrl-C and SIGTERM stop the run through one owner: 130/143 and the line that resumes it (ADR 0043).
  const stop = new StopSignals(io, {
    abortable: true,
    resumeCommand: (id) =>
      (id ?? flags.taskId) ? resumeCommandLine(command, id ?? flags.taskId ?? "") : null,
    // --json ends with exactly one result line, also after a stop (ADR 0046).
    onStopped: (code, error, stopped) => {
      if (flags.json) writeLine(io.out, stoppedResultLine("iterate", error, code, stopped));
    },
  });
  // The live line goes before StopSignals prints the resume command.
  return stop.run(async (signal) => {
    try {
      const lane = iterateLane({
        repo,
        baseDir: flags.baseDir,
        model: config.model,
        coder: config.coder,
        modelLimits: config.modelLimits,
        maxRequestBytes: config.maxRequestBytes,
        env: config.env,
        mode: flags.replay ? "replay" : flags.record ? "record" : "live",
        ...(flags.replay || flags.record ? { cassettePath: flags.replay ?? flags.record } : {}),
        lane: { ...config.lane, testCommand: flags.testCmd ?? null },
        onProgress: stop.watching(human?.sink ?? jsonProgress(io.out)),
        interactive,
        signal,
      });
      const first = await lane.run({
        request,
        ...(flags.taskId ? { taskId: flags.taskId } : {}),
        resume: Boolean(flags.resume),
      });
      // The same loop the chat runs across messages: needs_answers → ask → resume the same task.
      const outcome = await answerLane(
        first,
        async (q) => {
          human?.pause();
          return interactive ? askQuestions(q, io) : null;
        },
        lane.resume,
      );
      human?.close();
      const leftover = flags.replay ? unusedAnswersWarning(flags.replay, lane.unusedReplies()) : null;
      if (leftover) io.err(leftover);
      if (outcome.kind === "needs_answers") {
        // Only when a question went unanswered (the lane was interactive but nothing could ask).
        // With every option given now (the coder, the cassette), as a stopped run's line (ADR 0043).
        const resume = resumeCommandLine(command, outcome.task_id);
        if (flags.json)
          writeLine(io.out, pausedResultLine("iterate", outcome, EXIT.blockedOrNeedsContext, resume));
        io.err(
          `\n${outcome.task_id} is waiting for answers:\n${outcome.questions.map((x) => `  - ${x}`).join("\n")}\nAnswer them on a terminal: ${resume}\n`,
        );
        return EXIT.blockedOrNeedsContext;
      }
      const { result } = outcome;
      const ending = await finishRun(result, Boolean(flags.keepWorktree));
      const code = exitCodeFor(result.terminal.verdict);
      if (flags.json) writeLine(io.out, iterateResultLine("iterate", result, code, ending));
      else io.err(`\n${renderSummary(result, summaryStyle(io, output), ending)}`);
      return code;
    } finally {
      human?.close();
    }
  });
}

async function defaultRepo(interactive: boolean): Promise<string> {
  const { assertGitRepo } = await import("../../workspace/index.js");
  try {
    return await assertGitRepo(process.cwd());
  } catch (error) {
    if (!interactive) throw error;
    const answer = await readTerminalLine("Repository path or git URL: ");
    if (!answer) throw new DevflowError("BAD_OPTION", "no repository given: pass --repo <path|url>");
    return answer;
  }
}

/** The questions, then one answer; null (Ctrl-D) leaves the task waiting for answers (exit 3). */
async function askQuestions(q: NeedsAnswers, io: CliIO): Promise<string | null> {
  io.err(
    `\ndevflow needs more context for ${q.task_id}:\n${q.questions.map((x) => `  - ${x}`).join("\n")}\n`,
  );
  return readTerminalLine("Your answer: ");
}

/**
 * A resumed task keeps the coder it ran with unless `--coder` is typed for the resume: a bare
 * `--resume` fell back to the default backend (junie), or the one a config file names, and handed
 * a task begun by another coder to it unasked. The recorded coder is not adopted silently either:
 * it is read from the repository's `.devflow/`, and a `command:` coder named there would run a
 * shell command no flag asked for.
 */
async function checkResumedCoder(
  repo: string,
  taskId: string,
  coder: string,
  sources: ResolvedConfig["sources"],
): Promise<void> {
  const source = sources["coder.backend"];
  if (source.kind === "flag") return; // --coder typed for this resume: the user's choice

  const { unfinishedTaskCoder } = await import("../../lanes/iterate/tasks/inventory.js");
  const { isTaskId } = await import("../../home/index.js");
  const { sourceText } = await import("../../config/index.js");
  const root = await taskRepo(repo).catch(() => null);
  if (root === null || !isTaskId(taskId)) return; // the lane says what is wrong with them
  const recorded = await unfinishedTaskCoder(root, taskId);
  if (recorded === null || recorded === coder) return;
  throw new DevflowError(
    "BAD_OPTION",
    `task ${taskId} ran with the coder ${shellWord(recorded)}, not ${coder} (${sourceText(source)}): pass --coder ${shellWord(recorded)} to continue with it, or --coder <name> to switch`,
  );
}
