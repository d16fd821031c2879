import type { TicketKind } from "../../artifacts/schemas/ticket.js";
import { DevflowError } from "../../errors/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { type ModelGatewayOptions, openModelGateway } from "../../models/gateway.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { type Investigation, investigate } from "./investigate.js";

/** The read-only kinds of a daemon ticket (ADR 0057); `change` runs on the iterate lane. */
export type ReadOnlyKind = Exclude<TicketKind, "change">;

/** How the model is reached: the same settings the daemon's change flow uses. */
export interface InsightTicketSettings {
  mode: "live" | "replay" | "record";
  model: string;
  cassettePath?: string;
  env?: NodeJS.ProcessEnv;
  modelLimits?: Pick<ModelGatewayOptions, "timeoutMs" | "budgetMs" | "maxRetries">;
  /** Inject a gateway (tests); otherwise built from the settings above. */
  gateway?: ModelGateway;
}

export interface InsightTicket {
  kind: ReadOnlyKind;
  /** audit/investigate: the repository's path; question: null (a question names no repository). */
  repoRoot: string | null;
  /** question: an empty folder for the tools to look at (no repository to read). */
  emptyDir: string;
  /** The ticket's body (its `## Verification` sections left out). */
  body: string;
  /** investigate: the block's question. */
  question?: string;
  /** audit: what to look at. */
  focus?: string;
  signal?: AbortSignal;
}

/** What the run spent, for the daemon's spend ledger (ADR 0053): one session. */
export interface InsightSpend {
  costUsd: number;
  calls: number;
  unknownCostCalls: number;
}

/**
 * A read-only ticket on the insight lane (ADR 0057): the investigation of what the ticket asks
 * (an audit, one question with the body as context, or the body as the question), with the
 * read-only tools only. Records nothing: the daemon stores the result in its data root. `onSpent`
 * is called once, also when the run throws, so the calls it made are booked either way.
 */
export async function runInsightTicket(
  settings: InsightTicketSettings,
  ticket: InsightTicket,
  onSpent: (spend: InsightSpend) => void,
): Promise<Investigation> {
  const gateway =
    settings.gateway ??
    (await openModelGateway({
      mode: settings.mode,
      model: settings.model,
      ...settings.modelLimits,
      ...(settings.cassettePath ? { cassettePath: settings.cassettePath } : {}),
      env: settings.env ?? process.env,
    }));
  const before = gateway.usage();
  try {
    return await investigate({
      gateway,
      repoRoot: ticket.repoRoot,
      emptyDir: ticket.emptyDir,
      question: ticketQuestion(ticket),
      priorTurns: [],
      ...(ticket.signal ? { signal: ticket.signal } : {}),
    });
  } finally {
    const after = gateway.usage();
    onSpent({
      costUsd: after.total.cost_usd - before.total.cost_usd,
      calls: after.total.calls - before.total.calls,
      unknownCostCalls: (after.unknown_cost_calls ?? 0) - (before.unknown_cost_calls ?? 0),
    });
  }
}

/** The question the agent is asked, from the kind's prompt (src/agents/insight/ticket-*.md). */
export function ticketQuestion(ticket: Pick<InsightTicket, "kind" | "body" | "question" | "focus">): string {
  const body = ticket.body.trim();
  switch (ticket.kind) {
    case "audit":
      return fillPrompt(loadPrompt("insight", "ticket-audit.md"), {
        focus: ticket.focus?.trim() || "the whole repository: correctness, security, robustness",
        context: body || "(the ticket has no text besides its frontmatter)",
      });
    case "investigate":
      return fillPrompt(loadPrompt("insight", "ticket-investigate.md"), {
        question: ticket.question?.trim() ?? "",
        context: body || "(the ticket has no text besides its frontmatter)",
      });
    case "question":
      if (!body)
        throw new DevflowError(
          "REQUEST_EMPTY",
          "the question ticket has no text: write the question below the frontmatter",
        );
      return fillPrompt(loadPrompt("insight", "ticket-question.md"), { question: body });
  }
}
