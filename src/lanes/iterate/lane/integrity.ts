import {
  type Contract,
  canonicalJson,
  canonicalSha256,
  contractSha256,
  type RevisionedName,
  VerifierEnvelope,
} from "../../../artifacts/schemas/index.js";
import { checkGitLink, taskBranchFindings, userTaskBranchFindings } from "../../../workspace/index.js";
import type { IterateStateValue } from "../state.js";
import type { LaneDeps } from "./deps.js";

/**
 * The tamper check (ADR 0018), run by the gate before it decides. Everything a coder (or a process
 * it left behind) could have rewritten is compared with what devflow holds in its checkpointed
 * state or last wrote itself; each difference is one finding naming the file or ref. Empty: intact.
 */
export async function tamperFindings(
  state: IterateStateValue,
  deps: LaneDeps,
  attemptId: string,
): Promise<string[]> {
  const contract = state.contract;
  if (!contract) return ["no contract was pinned at readiness: nothing to judge the attempt against"];
  const findings: string[] = [];

  // 1. Files of the task dir this run wrote and someone else changed since (in-process record).
  for (const file of await deps.store.changedBehindOurBack()) {
    findings.push(`${file} was changed outside devflow after devflow wrote it`);
  }
  // 2. The task and observation against the revisions pinned in the contract (survives a resume).
  await compareArtifact(
    deps,
    "task_artifact",
    contract.task_artifact_revision,
    contract.task_artifact_sha256,
    findings,
  );
  await compareArtifact(
    deps,
    "observation_artifact",
    contract.observation_artifact_revision,
    contract.observation_artifact_sha256,
    findings,
  );
  // 3. The contract recorded in iterator_run.json against the pinned one.
  await compareRunRecord(deps, contract, findings);
  // 4. The verifier envelopes on disk against the results verify handed over in state.
  for (const envelope of state.verifierResults) {
    const rel = `verifiers/${envelope.verifier}.json`;
    const onDisk = await deps.store
      .readAttemptJson(attemptId, rel, VerifierEnvelope)
      .catch((error: unknown) => errorText(error));
    if (typeof onDisk === "string" || onDisk === null) {
      findings.push(`attempts/${attemptId}/${rel} cannot be read back: ${onDisk ?? "it is gone"}`);
    } else if (canonicalJson(onDisk) !== canonicalJson(envelope)) {
      findings.push(`attempts/${attemptId}/${rel} differs from the result devflow's verifier produced`);
    }
  }
  // 5. The task branch: only refs/heads/devflow/<task_id>, where devflow saw it after the coder ran.
  if (state.coderHead) {
    findings.push(
      ...(await taskBranchFindings(state.worktree, state.taskId, {
        head: state.coderHead,
        since: state.branchHead ?? contract.base_commit,
      })),
    );
  }
  // 5b. The task branch in the user's repository: only devflow moves it (ADR 0025).
  findings.push(
    ...(await userTaskBranchFindings(
      state.repoRoot,
      state.taskId,
      state.taskRefHead ?? contract.base_commit,
    )),
  );
  // 6. The checkout's link to its git dir (the worktree's `.git` file, commondir; ADR 0022).
  findings.push(...checkGitLink(state.worktree));
  return findings;
}

async function compareArtifact(
  deps: LaneDeps,
  name: Extract<RevisionedName, "task_artifact" | "observation_artifact">,
  revision: number,
  sha256: string,
  findings: string[],
): Promise<void> {
  const file = `${name}.json`;
  const value = await deps.store.read(name).catch((error: unknown) => errorText(error));
  if (typeof value === "string" || value === null) {
    findings.push(`${file} cannot be read back: ${value ?? "it is gone"}`);
  } else if (value.revision !== revision || canonicalSha256(value) !== sha256) {
    findings.push(`${file} differs from revision ${revision} pinned in the contract at readiness`);
  }
}

async function compareRunRecord(deps: LaneDeps, contract: Contract, findings: string[]): Promise<void> {
  const run = await deps.store.read("iterator_run").catch((error: unknown) => errorText(error));
  if (typeof run === "string" || run === null) {
    findings.push(`iterator_run.json cannot be read back: ${run ?? "it is gone"}`);
    return;
  }
  const sha = contractSha256(contract);
  const recorded = run.readiness?.contract;
  if (
    run.readiness?.contract_sha256 !== sha ||
    !recorded ||
    canonicalJson(recorded) !== canonicalJson(contract)
  ) {
    findings.push(
      `iterator_run.json: readiness.contract differs from the contract pinned at readiness (sha256 ${sha.slice(0, 12)})`,
    );
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
