import { createHash } from "node:crypto";
import { readFile, rename } from "node:fs/promises";
import { resolve } from "node:path";
import type { DaemonConfig, TicketRecord } from "../artifacts/schemas/ticket.js";
import { DevflowError } from "../errors/index.js";
import { queuedTicketPath, queueTmpDir } from "../home/daemon-paths.js";
import { locate } from "./fs-locate.js";
import { linkNew } from "./link-new.js";
import { type LintedTicket, planLint } from "./plan-lint.js";
import { mintTicketId } from "./ticket-id.js";
import type { SubmitResult } from "./ticket-queue.js";
import type { RecordFields } from "./ticket-records.js";
import {
  createTicketRecord,
  readTicketRecord,
  reserveTicketId,
  updateTicketRecord,
} from "./ticket-records.js";

/**
 * Submit: plan-lint, reserve a fresh id, write the record, then link the ticket's bytes into inbox/
 * (or failed/ when lint found errors). The record is written before the ticket appears, so a claimer
 * never sees a ticket without one; the link never replaces a file.
 */
export async function submitTicket(
  root: string,
  config: DaemonConfig,
  source: string,
  bytes: Uint8Array,
  now = new Date(),
): Promise<SubmitResult> {
  const absolute = resolve(source);
  const linted = await planLint(bytes, lintContext(config, absolute));
  let id = mintTicketId(absolute);
  for (let tries = 0; !(await reserveTicketId(root, id)); tries++) {
    if (tries > 20) throw new DevflowError("INTERNAL", `could not mint a free ticket id for ${absolute}`);
    id = mintTicketId(absolute);
  }
  const failed = linted.findings.length > 0;
  const at = now.toISOString();
  const fields: RecordFields = {
    id,
    state: failed ? "failed" : "inbox",
    status: failed ? "lint_failed" : "queued",
    submitted_at: at,
    updated_at: at,
    source: absolute,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    bytes: bytes.byteLength,
    ...lintedFields(linted),
    retry_count: 0,
    recoveries: 0,
  };
  const record = await createTicketRecord(root, fields);
  const target = queuedTicketPath(root, failed ? "failed" : "inbox", id);
  if (!(await linkNew(queueTmpDir(root), target, bytes)))
    throw new DevflowError("INTERNAL", `${target} exists although the id ${id} was just reserved`);
  return { id, record, findings: linted.findings };
}

/**
 * Retry: a failed (or cancelled) ticket goes back to the inbox once it passes plan-lint again (the
 * config or the repository may have been fixed). The ticket's bytes are the ones submitted.
 */
export async function retryTicket(
  root: string,
  config: DaemonConfig,
  id: string,
  now = new Date(),
): Promise<TicketRecord> {
  const where = await locate(root, id);
  if (!where) throw notFound(id);
  if (where.state !== "failed")
    throw new DevflowError(
      "TICKET_STATE",
      `ticket ${id} is in ${where.state}/, not failed/: only a failed ticket can be retried`,
    );
  const record = await readTicketRecord(root, id);
  if (!record)
    throw new DevflowError(
      "TICKET_STATE",
      `ticket ${id} has no record in the data root; submit its file again`,
    );
  const bytes = await readFile(queuedTicketPath(root, "failed", id));
  const linted = await planLint(bytes, lintContext(config, record.source));
  if (linted.findings.length > 0) {
    await updateTicketRecord(root, id, () => ({ ...lintedFields(linted), status: "lint_failed" }), now);
    throw rejected(id, linted);
  }
  try {
    await rename(queuedTicketPath(root, "failed", id), queuedTicketPath(root, "inbox", id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new DevflowError("TICKET_STATE", `ticket ${id} left failed/ while it was being retried`);
    throw error;
  }
  return updateTicketRecord(
    root,
    id,
    () => ({ ...lintedFields(linted), state: "inbox", status: "queued", reason: "retried by the user" }),
    now,
  );
}

const lintContext = (config: DaemonConfig, source: string) => ({
  source,
  knownLabels: config.labels,
  maxTicketBytes: config.max_ticket_bytes,
});

function lintedFields(
  linted: LintedTicket,
): Pick<RecordFields, "priority" | "not_before" | "repo" | "repo_key" | "kind" | "lint" | "reason"> {
  return {
    kind: linted.kind,
    priority: linted.frontmatter?.priority ?? "normal",
    not_before: linted.notBefore,
    repo: linted.repo,
    repo_key: linted.repoKey,
    lint: linted.findings,
    reason:
      linted.findings.length > 0
        ? `plan-lint: ${linted.findings[0]?.rule}: ${linted.findings[0]?.message}`
        : null,
  };
}

export function rejected(
  id: string,
  linted: { findings: readonly { rule: string; message: string }[] },
): DevflowError {
  const lines = linted.findings.map((f) => `  ${f.rule}: ${f.message}`).join("\n");
  return new DevflowError("TICKET_REJECTED", `ticket ${id} failed plan-lint and is in failed/:\n${lines}`, {
    hint: `fix the ticket and submit it again, or fix the setup and run devflow retry ${id}`,
  });
}

export const notFound = (id: string): DevflowError =>
  new DevflowError("TICKET_NOT_FOUND", `no ticket ${id} in the queue (devflow list shows the tickets)`);
