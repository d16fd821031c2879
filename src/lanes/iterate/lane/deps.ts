import type { ArtifactStore } from "../../../artifacts/store.js";
import type { CoderBackend } from "../../../coders/contract.js";
import type { ModelGateway } from "../../../models/contract.js";
import type { Reporter } from "./reporter.js";

export interface LaneOptions {
  /** Judge attempts (-n): coder runs whose result the gate judged. */
  maxJudgeAttempts: number;
  /** Timeout escalations over the whole run (docs/origins.md#04-taskunit-workflow): separate from judge attempts. */
  maxEscalations: number;
  /** First coder timeout; coder run k of an attempt runs with baseTimeoutMs × k, so escalation k gets × (k + 1). */
  baseTimeoutMs: number;
  /** Timeout for seam and regression commands. */
  commandTimeoutMs: number;
  /** How many times the seam verifier runs the seam per attempt (--seam-runs); any red run fails. */
  seamRuns: number;
  /**
   * Files a test folder the seam's code names may hold and still be fingerprinted (config
   * tests.seam_data_folder_limit, ADR 0019 amendment 3); a larger one is a caveat of every pass.
   */
  seamDataFolderLimit?: number;
  /** Explicit regression command (--test-cmd); null = detect. */
  testCommand: string | null;
  /** Ask questions through an interrupt (chat/TTY) instead of stopping with exit 3. */
  interactive: boolean;
  /** Model name handed to the coder backend, when it takes one. */
  coderModel: string | null;
  /** Author of devflow's commit on the task branch (config commit.author_*, ADR 0047); default devflow. */
  commitAuthor?: { name: string; email: string };
  /** Most extra verifiers a task may carry (ADR 0056); more is refused before any model call. */
  maxExtraVerifiers: number;
  /** Limit of each extra verifier's run; one that hits it fails the attempt, named with the limit. */
  extraVerifierTimeoutMs: number;
  /** Run the user's pre-commit/commit-msg hooks as checks before committing (config commit.hooks, ADR 0047). */
  commitHooks?: boolean;
  /**
   * The daemon only (ADR 0052 amendment s16/provfault): a coder stopped by its provider (auth,
   * rate_limit) throws CODER_PROVIDER_STOPPED and leaves the attempt open instead of ending `blocked`.
   */
  leaveProviderStopsOpen?: boolean;
}

/** What the user is asked before the first coder run of a task (chat without --yes). */
export interface CoderConfirmation {
  taskId: string;
  coder: string;
  title: string;
  seamCommand: string;
  worktree: string;
}

/** Everything a lane node needs besides its state: injected, never imported as singletons. */
export interface LaneDeps {
  gateway: ModelGateway;
  coder: CoderBackend;
  store: ArtifactStore;
  reporter: Reporter;
  options: LaneOptions;
  signal?: AbortSignal;
  /** Asked once when the task is ready, before any coder runs; false stops the lane (blocked). Absent: no confirmation. */
  confirmCoder?: (confirmation: CoderConfirmation) => Promise<boolean>;
}

export const DEFAULT_LANE_OPTIONS: LaneOptions = {
  maxJudgeAttempts: 5,
  maxEscalations: 2,
  baseTimeoutMs: 15 * 60_000,
  commandTimeoutMs: 5 * 60_000,
  seamRuns: 3,
  testCommand: null,
  interactive: false,
  coderModel: null,
  maxExtraVerifiers: 8,
  extraVerifierTimeoutMs: 5 * 60_000,
};
