import { join } from "node:path";
import type { IdeaBrief, PlanRun } from "../artifacts/schemas/index.js";
import { DevflowError } from "../errors/index.js";
import { lockPlan, readRecord, recordFileLabel, taskDirTaken } from "../home/index.js";
import { landedTasksProblem } from "../lanes/compose/landed-tasks.js";
import { COMPOSE_LIMITS } from "../lanes/compose/limits.js";
import { runCompose } from "../lanes/compose/run.js";
import type { ComposeSettings } from "../lanes/compose/settings.js";
import { runIdea } from "../lanes/idea/run.js";
import { runIterate } from "../lanes/iterate/run.js";
import type { ModelGateway } from "../models/contract.js";
import { buildModelGateway } from "../models/gateway.js";
import { assertGitRepo } from "../workspace/index.js";
import { unusedAnswersWarning } from "./cassette-leftovers.js";
import { type OutputFlags, outputSettings } from "./commands/output-flags.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { humanProgress } from "./human-progress.js";
import type { CliIO } from "./io.js";
import { errorResultLine, type PlanRan, planResultLine, writeLine } from "./json-output.js";
import { approveOrEdit, approvePlan, ask, briefText, isYes } from "./plan-approval.js";
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

/** The exit code of a plan's state, like the iterate lane's: 0 completed, 4 gave up, 3 otherwise. */
export function planExitCode(state: PlanRun["state"]): number {
  if (state === "completed") return EXIT.completed;
  if (state === "gave_up") return EXIT.exhausted;
  return EXIT.blockedOrNeedsContext;
}

const MARK = { pending: "[ ]", running: "[~]", landed: "[x]", failed: "[!]", skipped: "[-]" } as const;

/** One checklist line of a plan task. */
export function checklistLine(t: PlanRun["tasks"][number]): string {
  const tail =
    t.status === "landed"
      ? ` (${t.commit?.slice(0, 10)}, ${t.attempts} attempt${t.attempts === 1 ? "" : "s"})`
      : t.status === "failed"
        ? ` (${t.verdict}: ${t.reason})`
        : "";
  return `  ${MARK[t.status]} ${t.plan_task_id} ${t.title}${tail}`;
}

/** The plan's report: the checklist, Verify and Review, the branch, whether it gave up. */
export function planReport(run: PlanRun): string {
  return [
    `Plan ${run.plan_id}: ${run.state}${run.gave_up ? " (gave up)" : ""}: ${run.terminal?.reason ?? ""}`,
    ...run.tasks.map(checklistLine),
    `  verify: ${run.verify ? `${run.verify.overall_result}: ${run.verify.summary}` : "not run"}`,
    `  review: ${run.review ? `${run.review.overall_result}: ${run.review.summary}` : "not run"}`,
    ...run.replans.map(
      (r, i) =>
        `  re-plan ${i + 1} (${r.source === "task" ? `${r.plan_task_id}'s critic` : "review"}): ${r.approved ? `approved${r.edited ? " (edited)" : ""}, brief r${r.brief_revision}, added ${r.added.join(", ") || "nothing"}` : "not approved"}`,
    ),
    `  branch: ${run.integration_branch} (the landed tasks only)`,
    `  record: .devflow/idea/${run.plan_id}/plan_run.json`,
    "",
  ].join("\n");
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
 * The plan's prompts during the run (ADR 0055, 0060): none without a terminal or with --no-input.
 * An approved re-plan's revision is approved, edited (landed tasks kept) or declined like the first plan.
 */
function runPrompts(
  input: PlanCommandInput,
): Pick<ComposeSettings, "onReplan" | "onRevision" | "onQuestions"> {
  if (!canAsk(input)) return {};
  const { io } = input;
  return {
    onReplan: async (q) => {
      io.err(
        `\n${q.source === "task" ? `${q.planTaskId}'s critic` : "The review"} judged plan ${q.planId}'s assumptions wrong:\n  ${q.reason}\n` +
          `Kept (landed): ${q.landed.join(", ") || "none"}. Re-planned: ${q.dropped.join(", ") || "new tasks on top"}.\n`,
      );
      return isYes(await ask(`Re-plan the remaining tasks (re-plan ${q.replan} of ${q.maxReplans})? [y/N] `));
    },
    onRevision: async ({ ask: q, brief, landed }) => {
      io.err(
        `\nRe-plan ${q.replan} proposes (landed: ${landed.map((t) => t.id).join(", ") || "none"}):\n${briefText(brief)}\n`,
      );
      return approveOrEdit({
        brief,
        io,
        question: "Run the revised plan? [y]es, [e]dit, [N]o: ",
        check: (plan) => landedTasksProblem(landed, plan),
        // Written as the brief's next revision once approved (the lane keeps the history).
        onEdited: async () => "The edited plan is valid; it becomes the brief once you approve it.",
      });
    },
    onQuestions: async (q) => {
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
    resumeCommand: () => (planId ? `devflow plan --resume ${planId} --yes -r ${repoRoot}` : null),
    // --json ends with exactly one result line, also after a stop (ADR 0046); errors get theirs from runCli.
    onStopped: (code, error) => result(errorResultLine("plan", error, code)),
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
    const onProgress = human?.sink ?? jsonProgress(io.out);
    if (brief.tasks.length < COMPOSE_LIMITS.minTasksForCompose)
      return runSmallPlan(input, repoRoot, brief, { say, result, onProgress, signal }).finally(() =>
        human?.close(),
      );
    const seen = new Map<string, string>();
    // Said once the lane holds the plan's lock and opened its record: a refused second run prints one line.
    const header = `Running plan ${brief.id} as compose (${brief.tasks.length} tasks) on devflow/plan-${brief.id}:\n`;
    const outcome = await runCompose(
      {
        repo: repoRoot,
        model: input.model,
        coder: input.coder,
        mode: input.replay ? "replay" : "live",
        ...(input.replay ? { cassetteDir: input.replay } : {}),
        lane: { ...input.lane },
        onProgress,
        // The checklist fills in as tasks start, land or fail.
        onPlan: (run) => {
          if (seen.size === 0) say(header);
          for (const task of run.tasks) {
            if (seen.get(task.plan_task_id) === task.status) continue;
            seen.set(task.plan_task_id, task.status);
            if (task.status !== "pending") say(`${checklistLine(task)}\n`);
          }
        },
        signal,
        // Each task replays its own part of the dir: leftovers warn like an iterate replay's (ADR 0046).
        onUnusedAnswers: (u) => {
          const warning = unusedAnswersWarning(u.cassette, u.unused, `task ${u.planTaskId}`);
          if (warning) io.err(warning);
        },
        ...runPrompts(input),
      },
      brief.id,
    ).finally(() => human?.close());
    const run = outcome.result.run;
    io.err(`\n${planReport(run)}`);
    const code = planExitCode(run.state);
    result(
      planResultLine("plan", code, {
        ranAs: "compose",
        briefPath: join(repoRoot, recordFileLabel("idea", run.plan_id)),
        recordPath: outcome.result.artifactPath,
        run,
      }),
    );
    return code;
  });
}

const notRun = (ranAs: "iterate" | "not_run", repoRoot: string, planId: string): PlanRan => ({
  ranAs,
  planId,
  briefPath: join(repoRoot, recordFileLabel("idea", planId)),
});

/**
 * A plan of fewer than MinTasksForCompose tasks runs as one iterate request (ADR 0055 §8): the
 * tasks' requests joined, as task `plan-<id>`, under the plan's lock like a compose run. The output
 * says so before and after.
 */
async function runSmallPlan(
  input: PlanCommandInput,
  repoRoot: string,
  brief: IdeaBrief,
  out: {
    say: (text: string) => void;
    result: (line: Parameters<typeof writeLine>[1]) => void;
    onProgress: ComposeSettings["onProgress"];
    signal: AbortSignal;
  },
): Promise<number> {
  const taskId = `plan-${brief.id}`;
  const lock = await lockPlan(repoRoot, brief.id);
  try {
    out.say(
      `The plan has ${brief.tasks.length} task(s), fewer than ${COMPOSE_LIMITS.minTasksForCompose}: running them as one iterate request (task ${taskId}), not as compose.\n`,
    );
    const outcome = await runIterate({
      request: brief.tasks.map((t) => `${t.title}: ${t.request}`).join("\n"),
      taskId,
      // A stopped small plan continues its own iterate task.
      resume: taskDirTaken(repoRoot, taskId),
      repo: repoRoot,
      baseDir: ".",
      model: input.model,
      coder: input.coder,
      mode: input.replay ? "replay" : "live",
      ...(input.replay ? { cassettePath: join(input.replay, "T1.json") } : {}),
      lane: { ...input.lane },
      onProgress: out.onProgress,
      signal: out.signal,
    });
    const ran = notRun("iterate", repoRoot, brief.id);
    if (outcome.kind === "needs_answers") {
      out.result(planResultLine("plan", EXIT.blockedOrNeedsContext, ran, { paused: outcome }));
      return EXIT.blockedOrNeedsContext;
    }
    const { terminal, branch } = outcome.result;
    const code = exitCodeFor(terminal.verdict);
    input.io.err(
      `\nPlan ${brief.id} ran as one iterate request (task ${taskId}, not compose): ${terminal.verdict}: ${terminal.reason}\n  branch: ${branch ?? "none"}\n`,
    );
    out.result(planResultLine("plan", code, ran, { result: outcome.result }));
    return code;
  } finally {
    await lock.release();
  }
}
