import { join } from "node:path";
import { canonicalSha256 } from "../../artifacts/schemas/contract.js";
import type { Contract, PlanCheck, PlanTaskRun, PlanVerify } from "../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../artifacts/store.js";
import { openTaskStore } from "../../home/index.js";
import { nowIso } from "../../util/time.js";
import {
  runRegressionVerifier,
  runSeamIntegrityVerifier,
  runSeamVerifier,
  takeRegressionBaseline,
} from "../../verify/index.js";
import { taskWorktreePath } from "../../workspace/index.js";
import { verificationCheckoutAt, verifierMounts } from "../iterate/lane/verification-checkout.js";

/**
 * The compose lane's Verify (ADR 0055): after every task landed, devflow itself re-runs every
 * task's seam (the command its readiness pinned, judged by exit code) and the regression suite on
 * the final tree, the suite compared with a baseline taken on the plan's base. No model is asked.
 * It runs in the last task's verification checkout (devflow's own, ADR 0024), reset to each tree.
 */
export async function verifyPlan(input: {
  repoRoot: string;
  planStore: ArtifactStore;
  baseCommit: string;
  finalCommit: string;
  landed: PlanTaskRun[];
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Each task's contract as read right after it landed (this process), by iterate task id. A later
   * coder without the mount namespace can rewrite an earlier task's iterator_run.json (review,
   * session 16: later-task-rewrites-an-earlier-tasks-pinned-contract): Verify checks with these and
   * fails the plan when the file no longer matches. Tasks landed before a resume are read from disk.
   */
  landedContracts?: ReadonlyMap<string, Contract | null>;
}): Promise<PlanVerify> {
  const { repoRoot, landed } = input;
  const last = landed.at(-1);
  if (!last?.commit || !last.base_commit) throw new Error("verifyPlan needs at least one landed task");
  const contracts: { task: PlanTaskRun; contract: Contract | null }[] = [];
  const rewritten: string[] = [];
  for (const task of landed) {
    const run = await openTaskStore(repoRoot, task.iterate_task_id).read("iterator_run");
    const onDisk = run?.readiness?.contract ?? null;
    const atLanding = input.landedContracts?.get(task.iterate_task_id);
    if (atLanding !== undefined && canonicalSha256(atLanding) !== canonicalSha256(onDisk))
      rewritten.push(task.plan_task_id);
    contracts.push({ task, contract: atLanding !== undefined ? atLanding : onDisk });
  }
  const checkouts = {
    repoRoot,
    taskId: last.iterate_task_id,
    baseCommit: last.base_commit,
    worktree: taskWorktreePath(repoRoot, last.iterate_task_id),
  };
  const logDir = join(input.planStore.dir, "verify");
  const signal = input.signal ? { signal: input.signal } : {};
  const checks: PlanCheck[] = [];
  const pins = seamFilePins(contracts);
  for (const [index, { task, contract }] of contracts.entries()) {
    if (!contract) continue;
    // A later task's coder may edit an earlier task's seam test (only its own seam files are
    // pinned while it runs): the seam's exit code on the final tree would then prove nothing. Each
    // pin must hold up to the next task that pins the same path (checked on the tree that task
    // started from) or, for the last one, on the final tree.
    const integrity = await pinsHold(pins[index] ?? [], async (at) =>
      verificationCheckoutAt(checkouts, at ?? input.finalCommit),
    );
    if (integrity) {
      checks.push({ kind: "seam", plan_task_id: task.plan_task_id, envelope: integrity });
      continue;
    }
    const checkout = await verificationCheckoutAt(checkouts, input.finalCommit);
    const envelope = await runSeamVerifier({
      worktree: checkout,
      seam: { command: contract.seam_command, files: contract.seam_files.map((f) => f.path) },
      expectedGreenCondition: contract.expected_green_condition,
      timeoutMs: input.timeoutMs,
      logPath: join(logDir, `seam-${task.plan_task_id}.log`),
      attemptId: "plan-verify",
      mounts: verifierMounts(checkouts),
      ...signal,
    });
    checks.push({ kind: "seam", plan_task_id: task.plan_task_id, envelope });
  }
  const testCommand = contracts.map((c) => c.contract?.test_command ?? null).find((c) => c !== null) ?? null;
  const baselineCheckout = testCommand ? await verificationCheckoutAt(checkouts, input.baseCommit) : null;
  const baseline =
    testCommand && baselineCheckout
      ? await takeRegressionBaseline({
          cwd: baselineCheckout,
          command: testCommand,
          timeoutMs: input.timeoutMs,
          logPath: join(logDir, "regression-base.log"),
          mounts: verifierMounts(checkouts),
          ...signal,
        })
      : null;
  const finalCheckout = await verificationCheckoutAt(checkouts, input.finalCommit);
  const regression = await runRegressionVerifier({
    worktree: finalCheckout,
    command: testCommand,
    baseline,
    timeoutMs: input.timeoutMs,
    logPath: join(logDir, "regression.log"),
    attemptId: "plan-verify",
    seamTests: [],
    mounts: verifierMounts(checkouts),
    ...signal,
  });
  checks.push({ kind: "regression", plan_task_id: null, envelope: regression });
  const missing = contracts.filter((c) => !c.contract).map((c) => c.task.plan_task_id);
  const failed = checks.filter((c) => !["pass", "skipped"].includes(c.envelope.overall_result));
  const ok = failed.length === 0 && missing.length === 0 && rewritten.length === 0;
  return {
    tree_commit: input.finalCommit,
    overall_result: ok ? "pass" : "fail",
    checks,
    summary: ok
      ? `every task's seam and the regression suite pass on the final tree (${checks.length} checks)`
      : [
          ...failed.map((c) => `${c.plan_task_id ?? "regression"}: ${c.envelope.summary}`),
          ...missing.map(
            (id) => `${id}: its iterate task has no pinned contract, so its seam was not re-run`,
          ),
          ...rewritten.map(
            (id) =>
              `${id}: tamper: its recorded contract (iterator_run.json) changed after the task landed; checked with the contract as it landed`,
          ),
        ].join("; "),
    at: nowIso(),
  };
}

/** Seam file hashes that must hold on one tree: `at` a commit, or null for the plan's final tree. */
export interface SeamPinGroup {
  at: string | null;
  hashes: Record<string, string | null>;
}

/**
 * Per task, the seam files it pinned at readiness, grouped by the tree on which each must still
 * hold byte for byte: the tree the NEXT task pinning the same path started from (its contract's
 * base commit), or the plan's final tree when no later task pins it. No readiness changes an
 * existing file (the Observer's write_test_file only creates new ones), so between two pins of a
 * path only a coder can have changed it. Checking only the last pin (session 15) let a later pin
 * launder a middle task's edit (review, session 16: seam-pin-laundered-by-a-later-tasks-repin).
 */
export function seamFilePins(
  contracts: { contract: Pick<Contract, "seam_files" | "base_commit"> | null }[],
): SeamPinGroup[][] {
  return contracts.map(({ contract }, index) => {
    const groups = new Map<string | null, Record<string, string | null>>();
    for (const f of contract?.seam_files ?? []) {
      const next = contracts
        .slice(index + 1)
        .find((c) => c.contract?.seam_files.some((later) => later.path === f.path));
      const at = next?.contract?.base_commit ?? null;
      groups.set(at, { ...(groups.get(at) ?? {}), [f.path]: f.sha256 });
    }
    return [...groups].map(([at, hashes]) => ({ at, hashes }));
  });
}

/** The first failing integrity check of a task's pin groups (`null`: every pin holds). */
async function pinsHold(
  groups: SeamPinGroup[],
  checkoutAt: (at: string | null) => Promise<string>,
): Promise<PlanCheck["envelope"] | null> {
  for (const group of groups) {
    const envelope = await runSeamIntegrityVerifier({
      worktree: await checkoutAt(group.at),
      seamFileHashes: group.hashes,
      attemptId: "plan-verify",
    });
    if (envelope.overall_result !== "pass")
      return group.at === null
        ? envelope
        : {
            ...envelope,
            summary: `${envelope.summary} (before a later task pinned it again, at ${group.at.slice(0, 12)})`,
          };
  }
  return null;
}

/** One line per check, for the review's prompt and the report. */
export const verifyLines = (verify: PlanVerify): string[] =>
  verify.checks.map(
    (c) =>
      `${c.kind === "seam" ? `seam of ${c.plan_task_id}` : "regression suite"}: ${c.envelope.overall_result} (${c.envelope.summary})`,
  );
