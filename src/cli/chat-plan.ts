import { existsSync } from "node:fs";
import type { ChatPlans } from "../chat/repl.js";
import { DevflowError } from "../errors/index.js";
import { readRecord, recordFileLabel } from "../home/index.js";
import { COMPOSE_LIMITS } from "../lanes/compose/limits.js";
import type { LaneOptions } from "../lanes/iterate/lane/deps.js";
import type { OutputSettings } from "./commands/output-flags.js";
import { EXIT } from "./exit-codes.js";
import { humanProgress } from "./human-progress.js";
import type { CliIO } from "./io.js";
import { approvePlan } from "./plan-approval.js";
import { executePlan } from "./plan-execute.js";
import { runPrompts } from "./plan-run.js";

/**
 * Where a chat's plan run finds (replay) or writes (record) its cassettes: beside the chat's own
 * cassette, `chat.json` → `chat.plan/` holding T1.json … and review.json as for `devflow plan
 * --replay <dir>` (the chat's cassette answers the router and the idea planner).
 */
export const planCassetteDir = (chatCassette: string): string =>
  `${chatCassette.replace(/\.json$/, "")}.plan`;

export interface ChatPlanSettings {
  repoRoot: string;
  model: string;
  coder: string;
  mode: "live" | "replay" | "record";
  /** The chat's --replay / --record cassette. */
  cassette?: string;
  lane: Partial<LaneOptions>;
  /** --yes: approve without asking. */
  yes: boolean;
  /** stdin is a terminal: the run's re-plan and questions prompts may read a line (never piped input). */
  canAsk: boolean;
  json: boolean;
  io: CliIO;
  output: OutputSettings;
}

/**
 * The chat's plan step (issue 13): the brief the idea route just wrote is approved, edited or
 * rejected with `devflow plan`'s own approval (asked on the chat's input), then run with its own
 * execution (compose for three or more tasks, else one iterate request), checklist and report.
 */
export function chatPlans(s: ChatPlanSettings): ChatPlans {
  return async (step) => {
    const { io } = s;
    const say = (text: string) => {
      if (s.output.verbosity !== "quiet") io.err(text);
    };
    const proposed = readRecord(s.repoRoot, "idea", step.planId);
    if (!proposed) throw new DevflowError("PLAN_NOT_FOUND", `no plan "${step.planId}" in ${s.repoRoot}`);
    const cassetteDir = s.cassette ? planCassetteDir(s.cassette) : undefined;
    if (s.mode === "replay" && cassetteDir && !existsSync(cassetteDir))
      throw new DevflowError(
        "BAD_OPTION",
        `plan ${step.planId} is not run: replaying a chat runs its plans from ${cassetteDir}/ (T1.json … review.json, as devflow plan --replay), which does not exist`,
      );
    const brief = await approvePlan({
      repoRoot: s.repoRoot,
      brief: proposed,
      yes: s.yes,
      canAsk: true,
      io,
      prompter: step.prompter,
    });
    const ran = !brief
      ? "not_run"
      : brief.tasks.length < COMPOSE_LIMITS.minTasksForCompose
        ? "iterate"
        : "compose";
    if (!brief) {
      say(
        `Plan ${step.planId} not run (rejected). Its brief stays in ${recordFileLabel("idea", step.planId)}.\n`,
      );
      step.emit({ type: "plan_finished", plan_id: step.planId, ran, exit_code: EXIT.completed });
      return true;
    }
    const human = s.json ? null : humanProgress(io, s.output);
    const code = await executePlan(
      {
        repoRoot: s.repoRoot,
        model: s.model,
        coder: s.coder,
        mode: s.mode,
        ...(cassetteDir ? { cassetteDir } : {}),
        lane: s.lane,
        io,
        say,
        // The chat ends with its own result line (ADR 0049); the plan's outcome is an event.
        result: () => {},
        onProgress: human?.sink ?? step.progress,
        signal: step.signal,
        prompts: s.canAsk ? runPrompts(io, step.prompter, human) : {},
      },
      brief,
    ).finally(() => human?.close());
    step.emit({ type: "plan_finished", plan_id: brief.id, ran, exit_code: code });
    return true;
  };
}
