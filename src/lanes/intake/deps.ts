import type { ModelGateway } from "../../models/contract.js";
import type { CoderConfirmation, LaneOptions } from "../iterate/lane/deps.js";
import type { ProgressSink } from "../iterate/lane/reporter.js";
import type { EmitIntakeEvent } from "./events.js";

/** How the chat runs the iterate lane. */
export interface IterateSettings {
  coder: string;
  model: string;
  lane: Partial<LaneOptions>;
  /** The request size cap in bytes (limits.max_request_bytes); absent: the environment, else 64 KiB. */
  maxRequestBytes?: number;
  /** Asked before the first coder run of a task; absent (--yes) = never ask. */
  confirmCoder?: (confirmation: CoderConfirmation) => Promise<boolean>;
  /**
   * A progress display per iterate task (the CLI's human progress, ADR 0044); absent (`--json`):
   * progress goes out as `progress` events only.
   */
  display?: () => TaskDisplay;
  /** Keep a finished task's coder checkout (--keep-worktree); by default it is removed (ADR 0045). */
  keepWorktree?: boolean;
}

/** What the chat needs of a progress display: the lane's sink, a pause before a prompt, an end. */
export interface TaskDisplay {
  sink: ProgressSink;
  pause(): void;
  close(): void;
}

/** Everything an intake node needs besides its state: injected per session. */
export interface IntakeDeps {
  /** The conversation's repository (top level of a git working tree). */
  repoRoot: string;
  gateway: ModelGateway;
  emit: EmitIntakeEvent;
  /** The abort signal of the message being handled (Ctrl-C stops the lane, not the chat). */
  signal: () => AbortSignal;
  iterate: IterateSettings;
}
