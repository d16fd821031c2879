import { join } from "node:path";
import type { IdeaBrief } from "../artifacts/schemas/index.js";
import { DevflowError } from "../errors/index.js";
import { readRecord } from "../home/index.js";
import { landedTasksProblem } from "../lanes/compose/landed-tasks.js";
import type { ComposeSettings } from "../lanes/compose/settings.js";
import { runIdea } from "../lanes/idea/run.js";
import type { ModelGateway } from "../models/contract.js";
import { buildModelGateway } from "../models/gateway.js";
import { planResumeCommandLine } from "../util/command-line.js";
import { assertGitRepo } from "../workspace/index.js";
import { type OutputFlags, outputSettings } from "./commands/output-flags.js";
import { EXIT } from "./exit-codes.js";
import { type HumanProgress, humanProgress } from "./human-progress.js";
import type { CliIO } from "./io.js";
import { planResultLine, stoppedResultLine, writeLine } from "./json-output.js";
import {
  approveOrEdit,
  approvePlan,
  briefText,
  isYes,
  type PlanPrompter,
  terminalPrompter,
} from "./plan-approval.js";
import { executePlan, notRun } from "./plan-execute.js";
import { jsonProgress } from "./progress.js";
import { StopSignals } from "./signals.js";

/** What `devflow plan` and `devflow demo --plan` pass to the plan run (ADR 0055). */
export interface PlanCommandInput {
  request: string;
  repo: string;
  model: string;
  coder: string;
  /** Replay: the dir with idea.json, T1.json … and review.json. */
  replay?: string;
  yes: boolean;
  /** false with --no-input: never prompt (a re-plan is declined, questions stop the plan: exit 3). */
  input?: boolean;
  resume?: string;
  /** --json: event lines, then one result line with the plan's outcome on stdout (ADR 0060). */
  json?: boolean;
  output: OutputFlags;
  io: CliIO;
  /** Extra iterate lane options (the demo's timeouts). */
  lane?: { baseTimeoutMs?: number; commandTimeoutMs?: number };
}

async function gatewayFor(input: PlanCommandInput, part: string): Promise<ModelGateway> {
  const live =
    input.replay === undefined ? (await import("../models/live-chat-model.js")).EndpointChatOpenAI : null;
  return buildModelGateway(
    {
      mode: input.replay ? "replay" : "live",
      model: input.model,
      ...(input.replay ? { cassettePath: join(input.replay, `${part}.json`) } : {}),
      env: process.env,
    },
    live,
  );
}

/** Whether a person can be asked: a terminal, and neither --no-input nor --json. */
const canAsk = (input: PlanCommandInput): boolean =>
  Boolean(input.io.isTTY) && input.input !== false && !input.json;

/**
 * The plan's prompts during the run (ADR 0055, 0060), asked through `prompter` (the terminal, or the
 * chat's line reader): only when a person can be asked. An approved re-plan's revision is approved,
 * edited (landed tasks kept) or declined like the first plan.
 */
export function runPrompts(
  io: CliIO,
  prompter: PlanPrompter,
  progress: Pick<HumanProgress, "pause"> | null,
): Pick<ComposeSettings, "onReplan" | "onRevision" | "onQuestions"> {
  const ask = (question: string) => prompter.ask(question);
  // The live line keeps redrawing while a node (replan) runs: each frame erases the lines it
  // believes are its own, so whatever a prompt printed since, the question itself included, was
  // wiped (a CI run lost "The edited plan is not valid" this way). Taken down before anything is
  // printed; the next event brings it back.
  const pause = () => progress?.pause();
  return {
    onReplan: async (q) => {
      pause();
      io.err(
        `\n${q.source === "task" ? `${q.planTaskId}'s critic` : "The review"} judged plan ${q.planId}'s assumptions wrong:\n  ${q.reason}\n` +
          `Kept (landed): ${q.landed.join(", ") || "none"}. Re-planned: ${q.dropped.join(", ") || "new tasks on top"}.\n`,
      );
      return isYes(await ask(`Re-plan the remaining tasks (re-plan ${q.replan} of ${q.maxReplans})? [y/N] `));
    },
    onRevision: async ({ ask: q, brief, landed }) => {
      pause();
      io.err(
        `\nRe-plan ${q.replan} proposes (landed: ${landed.map((t) => t.id).join(", ") || "none"}):\n${briefText(brief)}\n`,
      );
      return approveOrEdit({
        brief,
        io,
        prompter,
        question: "Run the revised plan? [y]es, [e]dit, [N]o: ",
        check: (plan) => landedTasksProblem(landed, plan),
        // Written as the brief's next revision once approved (the lane keeps the history).
        onEdited: async () => "The edited plan is valid; it becomes the brief once you approve it.",
      });
    },
    onQuestions: async (q) => {
      pause();
      io.err(`\n${q.planTaskId} needs more context:\n${q.questions.map((x) => `  - ${x}`).join("\n")}\n`);
      return ask("Your answer (empty stops the plan): ");
    },
  };
}

/** `devflow plan`: plan (idea lane), approve, then compose (or one iterate request for a small plan). */
export async function runPlanCommand(input: PlanCommandInput): Promise<number> {
  const { io } = input;
  const repoRoot = await assertGitRepo(input.repo);
  const output = outputSettings(input.output, io);
  const say = (text: string) => {
    if (output.verbosity !== "quiet") io.err(text);
  };
  const result = (line: Parameters<typeof writeLine>[1]) => {
    if (input.json) writeLine(io.out, line);
  };
  let planId = input.resume ?? null;
  const stop = new StopSignals(io, {
    abortable: true,
    resumeCommand: () => (planId ? planResumeCommandLine(planId, repoRoot) : null),
    // --json ends with exactly one result line, also after a stop (ADR 0046); errors get theirs from runCli.
    onStopped: (code, error, stopped) => result(stoppedResultLine("plan", error, code, stopped)),
  });
  return stop.run(async (signal) => {
    let brief: IdeaBrief | null;
    if (planId) {
      brief = readRecord(repoRoot, "idea", planId);
      if (!brief) throw new DevflowError("PLAN_NOT_FOUND", `no plan "${planId}" in ${repoRoot}`);
    } else {
      const idea = await runIdea({
        gateway: await gatewayFor(input, "idea"),
        repoRoot,
        request: input.request,
        priorTurns: [],
      });
      planId = idea.result.brief.id;
      say(`\n${briefText(idea.result.brief)}\n`);
      brief = await approvePlan({
        repoRoot,
        brief: idea.result.brief,
        yes: input.yes,
        canAsk: canAsk(input),
        io,
      });
      if (!brief) {
        say(`Plan ${planId} not run (rejected). Its brief stays in ${idea.result.artifactPath}.\n`);
        result(planResultLine("plan", EXIT.completed, notRun("not_run", repoRoot, planId)));
        return EXIT.completed;
      }
    }
    const human = input.json ? null : humanProgress(io, output);
    return executePlan(
      {
        repoRoot,
        model: input.model,
        coder: input.coder,
        mode: input.replay ? "replay" : "live",
        ...(input.replay ? { cassetteDir: input.replay } : {}),
        lane: { ...input.lane },
        io,
        say,
        result,
        onProgress: human?.sink ?? jsonProgress(io.out),
        signal,
        prompts: canAsk(input) ? runPrompts(io, terminalPrompter, human) : {},
      },
      brief,
    ).finally(() => human?.close());
  });
}
