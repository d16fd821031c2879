import { EventLine, ResultLine } from "./cli-lines.js";
import { CoderReport } from "./coder-report.js";
import { DevflowEvent } from "./event.js";
import { IdeaBrief } from "./idea-brief.js";
import { InsightAnswer } from "./insight-answer.js";
import { IteratorRun } from "./iterator-run.js";
import { Lesson } from "./lesson.js";
import { ObservationArtifact } from "./observation-artifact.js";
import { PlanRun } from "./plan-run.js";
import { PromotionHandoff } from "./promotion-handoff.js";
import { SpendLedger } from "./spend.js";
import { TaskArtifact } from "./task-artifact.js";
import { TicketRecord, TicketResult } from "./ticket.js";
import { TicketAnswer } from "./ticket-answer.js";
import { VerifierEnvelope } from "./verifier-envelope.js";

export * from "./cli-lines.js";
export * from "./coder-report.js";
export * from "./common.js";
export * from "./contract.js";
export * from "./conversation.js";
export * from "./event.js";
export * from "./gate-verdict.js";
export * from "./idea-brief.js";
export * from "./insight-answer.js";
export * from "./iterator-run.js";
export * from "./lesson.js";
export * from "./observation-artifact.js";
export * from "./plan-run.js";
export * from "./promotion-handoff.js";
export * from "./spend.js";
export * from "./task-artifact.js";
export * from "./ticket.js";
export * from "./ticket-answer.js";
export * from "./verifier-envelope.js";

/** Revisioned top-level artifacts: name → schema. The file is `<name>.json` in the task dir. */
export const REVISIONED = {
  task_artifact: TaskArtifact,
  observation_artifact: ObservationArtifact,
  iterator_run: IteratorRun,
  promotion_handoff: PromotionHandoff,
  /** The daemon's record of one queued ticket (data/tickets/<id>/, ADR 0051). */
  ticket_record: TicketRecord,
  /** The terminal record of a ticket the daemon ran, beside its ticket_record (ADR 0051). */
  ticket_result: TicketResult,
  /** The answer or findings of a read-only ticket, beside its ticket_result (ADR 0057). */
  ticket_answer: TicketAnswer,
  /** The compose lane's record of one approved plan run (.devflow/idea/<id>/, ADR 0055). */
  plan_run: PlanRun,
} as const;
export type RevisionedName = keyof typeof REVISIONED;

/** Every schema that gets a generated JSON Schema in schemas/. */
export const ALL_SCHEMAS = {
  ...REVISIONED,
  coder_report: CoderReport,
  verifier_envelope: VerifierEnvelope,
  lesson: Lesson,
  event: DevflowEvent,
  event_line: EventLine,
  result_line: ResultLine,
  insight_answer: InsightAnswer,
  idea_brief: IdeaBrief,
  /** The daemon's spend ledger, <data root>/data/spend.json (ADR 0053). */
  spend_ledger: SpendLedger,
} as const;
export type SchemaName = keyof typeof ALL_SCHEMAS;
