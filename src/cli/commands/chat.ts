import { type Command, Option } from "commander";
import { CHAT_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";
import { commandConfig } from "./command-config.js";
import { addModelLimitOptions, type ModelLimitFlags, positiveSeconds } from "./limit-flags.js";
import { addOutputOptions, type OutputFlags } from "./output-flags.js";

interface ChatFlags extends ModelLimitFlags, OutputFlags {
  keepWorktree?: boolean;
  repo?: string;
  thread?: string;
  list?: boolean;
  model: string;
  coder: string;
  replay?: string;
  record?: string;
  yes?: boolean;
  json?: boolean;
  testCmd?: string;
  testTimeout?: number;
}

/** `devflow chat`: a conversation whose every message is routed to the right lane. */
export function registerChat(program: Command, io: CliIO): void {
  const command = program
    .command("chat")
    .description(
      "talk to devflow: each message is routed to iterate, insight, idea or neither; threads are kept",
    )
    .addHelpText("after", CHAT_HELP)
    .option("-r, --repo <path>", "the repository the conversation is about (default: the current one)")
    .option("--thread <id>", "continue an earlier thread (devflow chat --list shows them)")
    .option("--list", "list this repository's chat threads and exit")
    .option("-m, --model <name>", "model for routing and the lanes", "gpt-4.1-mini")
    .option(
      "--coder <name>",
      "coder backend: junie, claude, codex, gemini, opencode, aider, builtin, command:<shell>",
      "junie",
    )
    .addOption(
      new Option("--replay <cassette>", "answer model calls from a cassette (offline)").conflicts("record"),
    )
    .option("--record <cassette>", "call the live model and save its answers as a cassette")
    .option("--yes", "start coders and run planned features without asking for confirmation")
    .option("--json", "one JSON event per line on stdout instead of prose, then one result line")
    .option(
      "--keep-worktree",
      "keep the coder's checkout of a finished task (default: removed; the branch stays)",
    )
    .option("--test-cmd <command>", "regression test command for iterate tasks (default: detected)")
    .option(
      "--test-timeout <seconds>",
      "limit per seam/regression test run (default: $DEVFLOW_TEST_TIMEOUT, else 300)",
      positiveSeconds("--test-timeout"),
    );
  addOutputOptions(addModelLimitOptions(command)).action(async (flags: ChatFlags, cmd: Command) => {
    io.setExitCode(await chatAction(flags, io, cmd));
  });
}

async function chatAction(flags: ChatFlags, io: CliIO, cmd: Command): Promise<number> {
  // A finished --json chat ends with one result line (ADR 0049); an error thrown out of here gets
  // its result line from runCli (RESULT_LINE_COMMANDS).
  const { chatResultLine } = await import("../chat-result.js");
  const { writeLine } = await import("../json-output.js");
  // The chat, the lanes and the gateway load here, not at start-up (ADR 0042).
  const { assertGitRepo } = await import("../../workspace/index.js");
  const { IntakeSession } = await import("../../lanes/intake/session.js");
  const { openModelGateway } = await import("../../models/gateway.js");
  const { runChat } = await import("../../chat/repl.js");
  const repo = await assertGitRepo(flags.repo ?? process.cwd());
  // The chat runs iterate and plan: a bad DEVFLOW_MAX_IDLE_* fails at its start, as theirs does.
  (await import("../../lanes/iterate/idle-limits-env.js")).checkIdleLimitsEnv(process.env);
  // Defaults < user file < repo file < env < flags (ADR 0047).
  const { runSettings } = await import("../../config/index.js");
  const config = runSettings((await commandConfig(cmd, repo)).values, process.env);
  if (flags.list) {
    const { repoRoot, threads } = await IntakeSession.listThreads(repo);
    if (flags.json) {
      io.out(`${JSON.stringify({ type: "threads", repo: repoRoot, threads })}\n`);
      writeLine(io.out, chatResultLine({ code: 0, threadId: null, failedTurns: 0 }));
    } else if (threads.length === 0)
      io.out(`No chat threads in ${repoRoot} yet (devflow chat starts one).\n`);
    else
      io.out(
        `${threads.map((t) => `${t.id}  ${t.updated_at}  ${String(t.turns).padStart(3)} msg  ${t.title}`).join("\n")}\n`,
      );
    return 0;
  }
  // Before the gateway: a wrong --thread is the actionable problem, not a missing OPENAI_API_KEY.
  if (flags.thread) await IntakeSession.assertThread(repo, flags.thread);
  const gateway = await openModelGateway({
    mode: flags.replay ? "replay" : flags.record ? "record" : "live",
    model: config.model,
    ...config.modelLimits,
    env: config.env,
    ...(flags.replay || flags.record ? { cassettePath: flags.replay ?? flags.record } : {}),
  });
  const { outputSettings } = await import("./output-flags.js");
  const { humanProgress } = await import("../human-progress.js");
  const output = outputSettings(flags, io);
  const { chatPlans } = await import("../chat-plan.js");
  const lane = { ...config.lane, ...(flags.testCmd ? { testCommand: flags.testCmd } : {}) };
  const cassette = flags.replay ?? flags.record;
  try {
    return await runChat({
      repo,
      ...(flags.thread ? { threadId: flags.thread } : {}),
      yes: Boolean(flags.yes),
      json: Boolean(flags.json),
      gateway,
      coder: config.coder,
      model: config.model,
      lane,
      maxRequestBytes: config.maxRequestBytes,
      input: process.stdin,
      output: process.stdout,
      terminal: Boolean(process.stdin.isTTY) && !flags.json,
      canAsk: Boolean(process.stdin.isTTY),
      out: io.out,
      err: io.err,
      // Each iterate task shows the progress `devflow iterate` shows (ADR 0044); --json: events only.
      ...(flags.json ? {} : { display: () => humanProgress(io, output) }),
      ...(flags.keepWorktree ? { keepWorktree: true } : {}),
      // The idea route's brief is approved and run like `devflow plan`'s (issue 13).
      plans: chatPlans({
        repoRoot: repo,
        model: config.model,
        coder: config.coder,
        mode: gateway.mode,
        ...(cassette ? { cassette } : {}),
        lane,
        yes: Boolean(flags.yes),
        canAsk: Boolean(process.stdin.isTTY),
        json: Boolean(flags.json),
        io,
        output,
      }),
      ...(flags.json ? { onEnd: (end) => writeLine(io.out, chatResultLine(end)) } : {}),
    });
  } finally {
    await gateway.flush();
  }
}
