import {
  isTaskId,
  openPlanStore,
  openTaskStore,
  readRecord,
  recordFileLabel,
  taskExists,
} from "../home/index.js";
import { renderBrief } from "../lanes/intake/brief-text.js";
import type { LaneResult } from "../lanes/intake/state.js";
import { taskBranch } from "../workspace/index.js";

/** The latest word on a thread's results: iterate verdicts come from iterator_run.json (the truth on disk). */
export async function runsTable(repoRoot: string, results: LaneResult[]): Promise<string> {
  const latest = new Map<string, LaneResult>();
  for (const r of results) if (r.id) latest.set(`${r.lane}:${r.id}`, r);
  if (latest.size === 0) return "No runs in this thread yet.";
  const rows: string[][] = [];
  for (const r of latest.values()) {
    let verdict = r.outcome;
    if (r.lane === "iterate") {
      const run = await openTaskStore(repoRoot, r.id).read("iterator_run");
      if (run) verdict = run.terminal?.verdict ?? `${run.run_state}, not finished (/resume ${r.id})`;
    }
    rows.push([r.id, r.lane, verdict, r.summary]);
    if (r.lane === "idea") {
      const plan = await planRunRow(repoRoot, r.id);
      if (plan) rows.push(plan);
    }
  }
  const width = Math.max(...rows.map((row) => row[0]?.length ?? 0));
  return rows
    .map(
      ([id, lane, verdict, summary]) => `  ${id?.padEnd(width)}  ${lane?.padEnd(7)}  ${verdict}  ${summary}`,
    )
    .join("\n");
}

/**
 * The run of an idea's plan, when the chat (or `devflow plan`) ran it: not a graph turn, so not in
 * the thread's results; read from disk like an iterate verdict. A compose run is its
 * `plan_run.json`; a small plan ran as the iterate task `plan-<id>` (plan-execute.ts). Both land on
 * `devflow/plan-<id>`. Null when the plan was never run (rejected, or not asked).
 */
async function planRunRow(repoRoot: string, planId: string): Promise<string[] | null> {
  const compose = await openPlanStore(repoRoot, planId)
    .read("plan_run")
    .catch(() => null);
  const small = `plan-${planId}`;
  const iterate =
    compose === null && isTaskId(small) && taskExists(repoRoot, small)
      ? await openTaskStore(repoRoot, small).read("iterator_run")
      : null;
  const verdict = compose
    ? (compose.terminal?.verdict ?? `${compose.state}, not finished (devflow plan --resume ${planId})`)
    : iterate
      ? (iterate.terminal?.verdict ?? `${iterate.run_state}, not finished (/resume ${small})`)
      : null;
  if (verdict === null) return null;
  const branch = compose?.integration_branch ?? taskBranch(small);
  return [planId, "plan", verdict, `branch ${branch}${compose ? " (compose)" : ` (iterate task ${small})`}`];
}

/** `/show <id>`: an iterate task, an insight answer or an idea brief of this repository. */
export async function showRun(repoRoot: string, id: string): Promise<string> {
  if (!isTaskId(id))
    return `"${id}" is not a task or record id (ids look like trim-emails or 20250101-120000-how-does-x-work).`;
  if (taskExists(repoRoot, id)) return showTask(repoRoot, id);
  const insight = readRecord(repoRoot, "insight", id);
  if (insight) {
    const refs = insight.references.map((r) => `  - ${r.path}${r.line === null ? "" : `:${r.line}`}`);
    const unverified = insight.unverified_references.length
      ? `\n(${insight.unverified_references.length} reference(s) the model gave could not be verified)`
      : "";
    return [
      `insight ${id}`,
      `question: ${insight.question}`,
      "",
      insight.answer,
      refs.length ? `\nReferences:\n${refs.join("\n")}${unverified}` : unverified,
      `\n${recordFileLabel("insight", id)}`,
    ].join("\n");
  }
  const idea = readRecord(repoRoot, "idea", id);
  if (idea) return `idea ${id}\n${renderBrief(idea)}\n\n${recordFileLabel("idea", id)}`;
  return `No task or record "${id}" in ${repoRoot}; /runs lists this thread's.`;
}

async function showTask(repoRoot: string, id: string): Promise<string> {
  const store = openTaskStore(repoRoot, id);
  const run = await store.read("iterator_run");
  const task = await store.read("task_artifact");
  const observation = await store.read("observation_artifact");
  if (!run) return `Task ${id} has no run record.`;
  const lines = [`task ${id}${task ? `: ${task.title} (${task.task_type}, r${task.revision})` : ""}`];
  if (task) lines.push(`request   ${task.request}`);
  lines.push(
    run.terminal
      ? `verdict   ${run.terminal.verdict}: ${run.terminal.reason}`
      : `state     ${run.run_state}, not finished (/resume ${id})`,
  );
  if (observation)
    lines.push(
      `observed  ${observation.status}, ${observation.verdict}${observation.failing_seam ? `; seam \`${observation.failing_seam.command}\`` : ""}`,
    );
  lines.push(
    `branch    ${run.terminal?.branch ?? run.workspace.branch}${run.terminal?.commit ? ` @ ${run.terminal.commit.slice(0, 10)}` : ""}`,
  );
  for (const a of run.attempts) lines.push(`  ${a.attempt_id}  ${a.verdict}  ${a.summary}`);
  if (run.terminal?.questions.length)
    lines.push("questions", ...run.terminal.questions.map((q) => `  - ${q}`));
  lines.push(`artifacts ${store.dir}`);
  return lines.join("\n");
}
