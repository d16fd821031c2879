import { mkdir, rm } from "node:fs/promises";
import { ArtifactStore } from "../artifacts/index.js";
import type { TicketAnswer } from "../artifacts/schemas/ticket-answer.js";
import { questionWorkspaceDir, readOnlyCloneDir, ticketRecordDir } from "../home/daemon-paths.js";
import type { Investigation } from "../lanes/insight/investigate.js";
import { type InsightTicketSettings, type ReadOnlyKind, runInsightTicket } from "../lanes/insight/ticket.js";
import { cloneForReading, isGitUrl, redactUrl } from "../workspace/index.js";
import { runEndWithoutRun } from "./run-end.js";
import type { TicketRequest } from "./ticket-request.js";
import { TicketSpend } from "./ticket-spend.js";
import type { RunEnd, TicketRun } from "./worker-types.js";

/**
 * Runs an audit, investigate or question ticket on the insight lane (issue 12, ADR 0057): read-only
 * tools over the ticket's repository (a question names none: its tools see an empty folder), the
 * answer or findings stored as `data/tickets/<id>/ticket_answer.json` in the data root, never in
 * the repository and never on a branch. `completed`/`answered` only when the agent gave its own
 * answer; one that stopped without it is stored too but ends `failed`/`unanswered`. The run's model
 * calls are one session in the spend ledger, booked even when the run throws; a ticket whose
 * budget_usd is already spent is not run. A `repo:` that is a git URL is read from a fresh shallow
 * clone at `cache/reads/<id>/` (devflow's own git, no hooks, nothing written to the remote), removed
 * after the run; the answer names the URL (credentials redacted) and the commit read.
 */
export async function runReadOnlyTicket(
  run: TicketRun,
  ticket: TicketRequest,
  settings: InsightTicketSettings,
  root: string,
): Promise<RunEnd> {
  const kind = ticket.kind as ReadOnlyKind;
  const id = run.claim.id;
  const { frontmatter } = ticket;
  const end = (status: RunEnd["status"], verdict: string, reason: string, answer: string | null): RunEnd =>
    runEndWithoutRun({ status, verdict, reason, answer });
  const url = kind !== "question" && frontmatter.repo !== undefined && isGitUrl(frontmatter.repo);
  const spend = await TicketSpend.open(root, id, frontmatter.budget_usd);
  if (spend.stopped) return end("failed", "budget_exhausted", spend.stopReason ?? "", null);
  const emptyDir = questionWorkspaceDir(root, id);
  const cloneDir = readOnlyCloneDir(root, id);
  if (kind === "question") {
    // Fresh at every run: whatever an earlier run left there is not the ticket's to read.
    await rm(emptyDir, { recursive: true, force: true });
    await mkdir(emptyDir, { recursive: true });
  }
  let found: Investigation;
  try {
    // A URL is read from devflow's own shallow clone under cache/, made fresh for this run.
    const repoRoot =
      kind === "question"
        ? null
        : url
          ? await cloneForReading({ url: frontmatter.repo as string, dir: cloneDir })
          : (run.claim.record.repo_key ?? "");
    const model = frontmatter.model ?? settings.model;
    found = await runInsightTicket(
      { ...settings, model },
      {
        kind,
        repoRoot,
        emptyDir,
        body: ticket.request,
        ...(frontmatter.investigate ? { question: frontmatter.investigate.question } : {}),
        ...(frontmatter.audit?.focus ? { focus: frontmatter.audit.focus } : {}),
        signal: run.signal,
      },
      (spent) => spend.bookRun("insight", spent),
    );
  } finally {
    await spend.flush();
    if (kind === "question") await rm(emptyDir, { recursive: true, force: true });
    // The clone only served this run: the answer names the URL and the commit it read.
    if (url) await rm(cloneDir, { recursive: true, force: true });
  }
  const readFrom = url ? redactUrl(frontmatter.repo as string) : found.repoRoot;
  const path = await storeAnswer(root, id, kind, { ...found, repoRoot: readFrom });
  const refs = `${found.references.length} verified reference(s)${found.unverified.length > 0 ? `, ${found.unverified.length} unverified` : ""}`;
  const where = kind === "audit" ? `findings parked for review at ${path}` : `answer stored at ${path}`;
  const ledger = spend.ledgerProblem ? ` (${spend.ledgerProblem})` : "";
  if (found.stoppedBy !== null)
    return end("failed", "unanswered", `${found.answer} (${where})${ledger}`, path);
  return end("completed", "answered", `${kind}: ${refs}; ${where}${ledger}`, path);
}

/** `data/tickets/<id>/ticket_answer.json`, revisioned (a retried ticket's earlier answer stays in history/). */
async function storeAnswer(
  root: string,
  id: string,
  kind: ReadOnlyKind,
  found: Investigation,
): Promise<string> {
  const store = new ArtifactStore(ticketRecordDir(root, id));
  const fields: Omit<TicketAnswer, "revision"> = {
    id,
    kind,
    status: found.stoppedBy === null ? "answered" : "unanswered",
    question: found.question,
    answer: found.answer,
    references: found.references,
    unverified_references: found.unverified,
    stopped_by: found.stoppedBy,
    repo: found.repoRoot,
    head_commit: found.headCommit,
    model: found.model,
    tool_calls: found.toolCalls,
    created_at: new Date().toISOString(),
  };
  await store.write("ticket_answer", fields, {
    expectedRevision: await store.currentRevision("ticket_answer"),
  });
  return store.path("ticket_answer");
}
