import type { Command } from "commander";
import { DevflowError } from "../../errors/index.js";
import { PLAN_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";
import { addOutputOptions, type OutputFlags } from "./output-flags.js";

interface PlanFlags extends OutputFlags {
  repo?: string;
  model: string;
  coder: string;
  replay?: string;
  yes?: boolean;
  /** false with --no-input. */
  input: boolean;
  resume?: string;
  json?: boolean;
}

/**
 * `devflow plan "<request>"` (ADR 0055): the idea lane plans the request, the user approves it (or
 * `--yes`), and the compose lane runs it task by task onto `devflow/plan-<id>`; a plan of fewer than
 * three tasks runs as one iterate request. `--resume <id>` continues a plan where it stopped.
 */
export function registerPlan(program: Command, io: CliIO): void {
  addOutputOptions(
    program
      .command("plan")
      .description("plan a feature, then run the approved plan task by task to a verified integration branch")
      .addHelpText("after", PLAN_HELP)
      .argument("[request...]", "the feature, in plain words")
      .option("-r, --repo <path>", "repository path (default: the current directory)")
      .option("-m, --model <name>", "model for planning, framing, observation and judging", "gpt-4.1-mini")
      .option(
        "--coder <name>",
        "coder backend: junie, claude, codex, gemini, opencode, aider, builtin, command:<shell>",
        "junie",
      )
      .option("--replay <dir>", "replay recorded answers: a dir with idea.json, T1.json … and review.json")
      .option("--yes", "approve the plan without asking (otherwise: [y]es, [e]dit in $VISUAL/$EDITOR, [N]o)")
      .option(
        "--no-input",
        "never prompt: a PLAN_INVALID re-plan is declined, a task's questions stop the plan (exit 3)",
      )
      .option("--resume <id>", "continue the plan with this id (.devflow/idea/<id>/) where it stopped")
      .option("--json", "one JSON event per line on stdout, then one result line with the plan's outcome"),
  ).action(async (words: string[], flags: PlanFlags) => {
    const request = words.join(" ").trim();
    if (!request && !flags.resume)
      throw new DevflowError(
        "REQUEST_EMPTY",
        'the request is empty: devflow plan "the feature" (or --resume <id>)',
      );
    // The lanes load here, not at start-up (ADR 0042); a bad DEVFLOW_MAX_IDLE_* fails before any task.
    (await import("../../lanes/iterate/idle-limits-env.js")).checkIdleLimitsEnv(process.env);
    const { runPlanCommand } = await import("../plan-run.js");
    io.setExitCode(
      await runPlanCommand({
        request,
        repo: flags.repo ?? process.cwd(),
        model: flags.model,
        coder: flags.coder,
        ...(flags.replay ? { replay: flags.replay } : {}),
        yes: Boolean(flags.yes),
        input: flags.input,
        ...(flags.resume ? { resume: flags.resume } : {}),
        json: Boolean(flags.json),
        output: flags,
        io,
      }),
    );
  });
}
