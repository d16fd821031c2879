import { DevflowEvent } from "../../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../../artifacts/store.js";
import { nowIso } from "../../../util/time.js";

/** A node finished (or failed): what the progress line and events.jsonl say about it. */
export interface NodeReport {
  node: string;
  phase: DevflowEvent["phase"];
  ok: boolean;
  outcome: string | null;
  durationMs: number | null;
  runState: string | null;
  attemptId: string | null;
  tokens: number;
  costUsd: number;
  /** Model and coder calls booked in the node, and how many of them had an unknown cost (ADR 0053). */
  calls?: number;
  unknownCostCalls?: number;
  detail: Record<string, unknown>;
}

/**
 * What a live display may also want between node events (issue 11): where the artifacts are, that a
 * coder run started (and where its transcript grows), and the coder's latest activity. Display
 * only: nothing is recorded from it and --json's sink has none.
 */
export interface LiveProgress {
  artifactDir?(dir: string): void;
  coderStarted?(run: { attemptId: string; transcript: string; timeoutMs: number; run: number }): void;
  coderActivity?(text: string): void;
}

export type ProgressSink = ((event: DevflowEvent, report: NodeReport) => void) & { live?: LiveProgress };

/** Writes every node event to events.jsonl and forwards it to the progress sink (stderr line or --json). */
export class Reporter {
  constructor(
    private readonly taskId: string,
    private readonly sink: ProgressSink,
    private store: ArtifactStore | null = null,
  ) {
    if (store) sink.live?.artifactDir?.(store.dir);
  }

  attachStore(store: ArtifactStore): void {
    this.store = store;
    this.sink.live?.artifactDir?.(store.dir);
  }

  /** The live display's side channel (LiveProgress); never written to events.jsonl. */
  get live(): LiveProgress {
    return this.sink.live ?? {};
  }

  async emit(report: NodeReport): Promise<void> {
    const event: DevflowEvent = {
      ts: nowIso(),
      task_id: this.taskId,
      node: report.node,
      phase: report.phase,
      outcome: report.outcome,
      duration_ms: report.durationMs,
      run_state: report.runState,
      attempt_id: report.attemptId,
      tokens: report.tokens,
      cost_usd: report.costUsd,
      detail: report.detail,
    };
    if (this.store) await this.store.appendJsonl("events.jsonl", DevflowEvent, event);
    this.sink(event, report);
  }

  /** An event outside any node's run (sweep, checkout adoption, the user-repo check): no time, tokens or attempt. */
  info(
    node: string,
    outcome: string,
    detail: Record<string, unknown>,
    opts: { ok?: boolean; runState?: string | null } = {},
  ): Promise<void> {
    return this.emit({
      node,
      phase: "info",
      ok: opts.ok ?? true,
      outcome,
      durationMs: null,
      runState: opts.runState ?? null,
      attemptId: null,
      tokens: 0,
      costUsd: 0,
      detail,
    });
  }
}
