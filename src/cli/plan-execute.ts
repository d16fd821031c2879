import { join } from "node:path";
import type { IdeaBrief, PlanRun } from "../artifacts/schemas/index.js";
import { lockPlan, recordFileLabel, taskDirTaken } from "../home/index.js";
import { COMPOSE_LIMITS } from "../lanes/compose/limits.js";
import { runCompose } from "../lanes/compose/run.js";
import type { ComposeSettings } from "../lanes/compose/settings.js";
import type { LaneOptions } from "../lanes/iterate/lane/deps.js";
import { runIterate } from "../lanes/iterate/run.js";
import { unusedAnswersWarning } from "./cassette-leftovers.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import { type PlanRan, planResultLine, type writeLine } from "./json-output.js";

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

export const notRun = (ranAs: "iterate" | "not_run", repoRoot: string, planId: string): PlanRan => ({
  ranAs,
  planId,
  briefPath: join(repoRoot, recordFileLabel("idea", planId)),
});

/** How an approved plan runs: the same for `devflow plan`, `devflow demo --plan` and the chat. */
export interface PlanExecution {
  repoRoot: string;
  model: string;
  coder: string;
  mode: ComposeSettings["mode"];
  /** Replay/record: the dir with T1.json … and review.json (a small plan uses T1.json). */
  cassetteDir?: string;
  lane: Partial<LaneOptions>;
  io: CliIO;
  /** Progress lines (the checklist); silent with --quiet. */
  say: (text: string) => void;
  /** --json's result line (a no-op otherwise). */
  result: (line: Parameters<typeof writeLine>[1]) => void;
  onProgress: ComposeSettings["onProgress"];
  signal: AbortSignal;
  /** The re-plan and questions prompts (none without a person to ask). */
  prompts: Pick<ComposeSettings, "onReplan" | "onQuestions">;
}

/**
 * Runs an approved plan (ADR 0055): as compose when it has at least MinTasksForCompose tasks, with
 * its checklist filling in as tasks start, land or fail, else as one iterate request; says which,
 * prints the plan report on stderr and returns the iterate-like exit code.
 */
export async function executePlan(x: PlanExecution, brief: IdeaBrief): Promise<number> {
  if (brief.tasks.length < COMPOSE_LIMITS.minTasksForCompose) return runSmallPlan(x, brief);
  const seen = new Map<string, string>();
  // Said once the lane holds the plan's lock and opened its record: a refused second run prints one line.
  const header = `Running plan ${brief.id} as compose (${brief.tasks.length} tasks) on devflow/plan-${brief.id}:\n`;
  const outcome = await runCompose(
    {
      repo: x.repoRoot,
      model: x.model,
      coder: x.coder,
      mode: x.mode,
      ...(x.cassetteDir ? { cassetteDir: x.cassetteDir } : {}),
      lane: { ...x.lane },
      onProgress: x.onProgress,
      // The checklist fills in as tasks start, land or fail.
      onPlan: (run) => {
        if (seen.size === 0) x.say(header);
        for (const task of run.tasks) {
          if (seen.get(task.plan_task_id) === task.status) continue;
          seen.set(task.plan_task_id, task.status);
          if (task.status !== "pending") x.say(`${checklistLine(task)}\n`);
        }
      },
      signal: x.signal,
      // Each task replays its own part of the dir: leftovers warn like an iterate replay's (ADR 0046).
      onUnusedAnswers: (u) => {
        const warning = unusedAnswersWarning(u.cassette, u.unused, `task ${u.planTaskId}`);
        if (warning) x.io.err(warning);
      },
      ...x.prompts,
    },
    brief.id,
  );
  const run = outcome.result.run;
  x.io.err(`\n${planReport(run)}`);
  const code = planExitCode(run.state);
  x.result(
    planResultLine("plan", code, {
      ranAs: "compose",
      briefPath: join(x.repoRoot, recordFileLabel("idea", run.plan_id)),
      recordPath: outcome.result.artifactPath,
      run,
    }),
  );
  return code;
}

/**
 * A plan of fewer than MinTasksForCompose tasks runs as one iterate request (ADR 0055 §8): the
 * tasks' requests joined, as task `plan-<id>`, under the plan's lock like a compose run. The output
 * says so before and after.
 */
async function runSmallPlan(x: PlanExecution, brief: IdeaBrief): Promise<number> {
  const taskId = `plan-${brief.id}`;
  const lock = await lockPlan(x.repoRoot, brief.id);
  try {
    x.say(
      `The plan has ${brief.tasks.length} task(s), fewer than ${COMPOSE_LIMITS.minTasksForCompose}: running them as one iterate request (task ${taskId}), not as compose.\n`,
    );
    const outcome = await runIterate({
      request: brief.tasks.map((t) => `${t.title}: ${t.request}`).join("\n"),
      taskId,
      // A stopped small plan continues its own iterate task.
      resume: taskDirTaken(x.repoRoot, taskId),
      repo: x.repoRoot,
      baseDir: ".",
      model: x.model,
      coder: x.coder,
      mode: x.mode,
      ...(x.cassetteDir ? { cassettePath: join(x.cassetteDir, "T1.json") } : {}),
      lane: { ...x.lane },
      onProgress: x.onProgress,
      signal: x.signal,
    });
    const ran = notRun("iterate", x.repoRoot, brief.id);
    if (outcome.kind === "needs_answers") {
      x.result(planResultLine("plan", EXIT.blockedOrNeedsContext, ran, { paused: outcome }));
      return EXIT.blockedOrNeedsContext;
    }
    const { terminal, branch } = outcome.result;
    const code = exitCodeFor(terminal.verdict);
    x.io.err(
      `\nPlan ${brief.id} ran as one iterate request (task ${taskId}, not compose): ${terminal.verdict}: ${terminal.reason}\n  branch: ${branch ?? "none"}\n`,
    );
    x.result(planResultLine("plan", code, ran, { result: outcome.result }));
    return code;
  } finally {
    await lock.release();
  }
}
