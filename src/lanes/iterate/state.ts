import { StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import {
  Contract,
  ConversationTurn,
  ExtraVerifier,
  GateVerdict,
  Terminal,
  VerifierEnvelope,
} from "../../artifacts/schemas/index.js";
import { RunnerInvocation, TestReport } from "../../verify/index.js";

/**
 * What the iterate lane checkpoints between nodes. Deliberately small: the artifacts on disk are
 * the truth, the state only carries ids, counters and the few values a later node needs that
 * would be wasteful to recompute (the seam tree, the regression baseline).
 */
export const IterateState = new StateSchema({
  taskId: z.string(),
  request: z.string(),
  priorTurns: z.array(ConversationTurn).default(() => []),
  /** The requester's extra verifiers (ADR 0056): set once at start, so a resume keeps them. */
  extraVerifiers: z.array(ExtraVerifier).default(() => []),
  /** Answers the user gave to needs_more_context questions; re-framing reads them. */
  answers: z.array(z.string()).default(() => []),

  repoRoot: z.string(),
  worktree: z.string().default(""),
  branch: z.string().default(""),
  baseCommit: z.string().default(""),
  /** Tree of the worktree once the seam exists and before any coder ran: attempt diffs start here. */
  seamTree: z.string().nullable().default(null),
  /**
   * The change from the base commit to `seamTree`, path by path (observe, with `seamTree`): verify
   * composes the change since base from it and the attempt's diff instead of asking git again
   * (issue 11). null (a checkpoint from before it existed): verify asks git.
   */
  seamSinceBase: z
    .array(
      z.object({
        path: z.string(),
        oldMode: z.string(),
        oldId: z.string(),
        newMode: z.string(),
        newId: z.string(),
      }),
    )
    .nullable()
    .default(null),
  /** Tree right after the last coder run: verify diffs against it instead of snapshotting again. */
  attemptTree: z.string().nullable().default(null),
  seamFileHashes: z.record(z.string(), z.string().nullable()).default(() => ({})),
  /** Seam test code that could not be fingerprinted (unreadable imports, huge data folders): gate caveat. */
  seamUnprotected: z.array(z.string()).default(() => []),
  /**
   * When readiness first pinned the contract (ms since the epoch), before any coder ran: a seam run
   * that loads code or configuration from outside its checkout changed since is red (ADR 0074).
   */
  contractPinnedAtMs: z.number().nullable().default(null),
  /** Files base's test configuration loads besides the configuration files (ADR 0074): pinned in the contract. */
  testConfigImports: z.array(z.string()).default(() => []),
  /** The seam's evidence the task's scope names exactly, left editable (not fingerprinted): pinned, a caveat when changed. */
  seamScopeNamed: z.array(z.string()).default(() => []),
  /** The seam's test code that loads test files by a computed name (seam-helpers.ts): pinned in the contract. */
  seamComputedLoaders: z.array(z.string()).default(() => []),
  /** Keys of the seam's tests that failed by name on base (pinned by observe); [] = exit-code seam. */
  seamTests: z.array(z.string()).default(() => []),
  /** The runner invocation the seam resolved to on base (the seam verifier runs it with a report). */
  seamInvocation: RunnerInvocation.nullable().default(null),

  testCommand: z.string().nullable().default(null),
  baseline: z
    .object({
      command: z.string(),
      ran: z.boolean(),
      exitCode: z.number().nullable(),
      tests: z.record(z.string(), z.enum(["pass", "fail"])).nullable(),
      sameNamePasses: z.record(z.string(), z.number().int().nonnegative()).nullable().optional(),
      error: z.string().nullable(),
      logPath: z.string(),
      invocation: RunnerInvocation.nullable().optional(),
      report: TestReport.nullable().optional(),
      testConfig: z.string().nullable().optional(),
      pytestConfig: z.string().nullable().optional(),
      packageConfigs: z.string().nullable().optional(),
      consoleCommand: z.string().nullable().optional(),
      consoleEnv: z.record(z.string(), z.string()).nullable().optional(),
      preScriptsLeftOut: z.string().nullable().optional(),
      refused: z.string().nullable().optional(),
      canary: z
        .discriminatedUnion("status", [
          z.object({
            status: z.literal("placed"),
            next_to: z.string(),
            base_stopped_before_it: z.boolean().optional(),
          }),
          z.object({ status: z.literal("not_run"), reason: z.string() }),
        ])
        .nullable()
        .optional(),
    })
    .nullable()
    .default(null),

  /**
   * What every attempt is judged against, pinned at readiness (ADR 0018). verify, gate and commit
   * use this, never the task/observation re-read from disk after a coder ran.
   */
  contract: Contract.nullable().default(null),
  /** The task branch's commit devflow last accepted (null: the base commit); the coder may only add on top. */
  branchHead: z.string().nullable().default(null),
  /** The task branch's commit right after the last coder run; commit moves the branch from it (CAS). */
  coderHead: z.string().nullable().default(null),
  /**
   * The commits on the task branch since the base, read with `coderHead` right after the last coder
   * run (oldest first; null: not read yet). The gate checks the branch still stands there, so commit
   * reports these as the coder's own commits without asking git again (issue 11).
   */
  coderCommits: z.array(z.string()).nullable().default(null),
  /** `refs/heads/devflow/<task_id>` in the user's repository as devflow last set it (null: the base); ADR 0025. */
  taskRefHead: z.string().nullable().default(null),
  /** The current attempt's verifier results as verify produced them; the gate decides from these. */
  verifierResults: z.array(VerifierEnvelope).default(() => []),
  /** The gate's verdict on the current attempt; commit writes its message from this. */
  gateVerdict: GateVerdict.nullable().default(null),

  /** Judge attempts started so far; the current attempt id is attempt-<judgeAttempt>. */
  judgeAttempt: z.number().int().default(0),
  /** Coder runs within the current judge attempt (1 = first try, 2+ = timeout escalations). */
  timeoutAttempt: z.number().int().default(1),
  /** Timeout escalations over the whole run; bounded by its own cap (docs/origins.md#04-taskunit-workflow). */
  escalations: z.number().int().default(0),
  replans: z.number().int().default(0),

  /** Outcome of the last gate, read by routers. */
  gateResult: z.enum(["pending", "pass", "fail"]).default("pending"),
  terminal: Terminal.nullable().default(null),
  /**
   * The model gateway's cassette cursor after the last finished node (answers consumed or recorded
   * per role): a resumed replay or recording continues the cassette from here (ADR 0035).
   */
  cassetteCursor: z
    .object({ cassette: z.string(), calls: z.record(z.string(), z.number().int().min(0)) })
    .nullable()
    .default(null),
});

export type IterateStateValue = typeof IterateState.State;
export type IterateStateUpdate = typeof IterateState.Update;
