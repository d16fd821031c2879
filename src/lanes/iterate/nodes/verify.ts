import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  CoderReport,
  canonicalSha256,
  attemptId as toAttemptId,
  VerifierEnvelope,
} from "../../../artifacts/schemas/index.js";
import { DEVFLOW_DIR } from "../../../home/index.js";
import { killPoint } from "../../../util/test-kill-point.js";
import {
  checkoutRunMark,
  checkoutUntouchedSince,
  criticNotAsked,
  PYTHON_MODULE_FILE,
  pythonShadowFindings,
  runCriticVerifier,
  runExtraVerifiers,
  runRegressionVerifier,
  runScopeVerifier,
  runSeamIntegrityVerifier,
  runSeamVerifier,
  suiteConfigurationFiles,
  withBaseTestConfig,
} from "../../../verify/index.js";
import {
  changedFilesAndLinks,
  composeChanges,
  diffTrees,
  ignoredOutsideSnapshot,
  pathsInTree,
  snapshotTree,
  symlinksLeavingRepo,
} from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { transition } from "../lane/run-record.js";
import {
  checkoutWithBasePrograms,
  markedSourceChanges,
  seamTreeAt,
  suiteTreeAt,
  verificationCheckoutAt,
  verifierMounts,
} from "../lane/verification-checkout.js";
import { isDependencyLink } from "../link-dependencies.js";

/**
 * Runs every verifier itself and writes one normalized envelope each under
 * attempts/attempt-NNN/verifiers/ (the record); the results go to the gate in state. Every input
 * comes from the contract pinned at readiness (ADR 0018), never from the task or observation read
 * back after the coder ran. Seam, seam integrity and regression run in the task's verification
 * checkout reset to exactly the snapshot (ADR 0024), never in the coder's checkout. The critic (a model call) only runs when the deterministic verifiers
 * pass: its verdict cannot rescue a red seam, so asking would only spend tokens.
 */
export const verify: NodeBody = async (state, deps) => {
  const attemptId = toAttemptId(state.judgeAttempt);
  deps.gateway.setAttempt(attemptId);
  await transition(deps.store, "verifying", `${attemptId}: re-running the evidence`);
  const contract = state.contract;
  if (!contract || !state.seamTree) throw new Error("verify: no contract was pinned at readiness");
  const seamFiles = contract.seam_files.map((f) => f.path);
  const dir = deps.store.attemptDir(attemptId);
  mkdirSync(join(dir, "verifiers"), { recursive: true });
  const timeoutMs = deps.options.commandTimeoutMs;
  const signal = deps.signal ? { signal: deps.signal } : {};

  const current = state.attemptTree ?? (await snapshotTree(state.worktree));
  const cumulative = await diffTrees(state.worktree, state.seamTree, current);
  // A first attempt's change since the seam is its diff.patch: linked, not written again (issue 11).
  await deps.store.writeText(`attempts/${attemptId}/cumulative.diff.patch`, cumulative.patch, {
    sameAs: `attempts/${attemptId}/diff.patch`,
  });
  // base→seam (fixed per task) then seam→attempt (the diff just read): no git process (issue 11).
  const sinceBase = state.seamSinceBase
    ? composeChanges(state.seamSinceBase, cumulative.changes)
    : await changedFilesAndLinks(state.worktree, state.baseCommit, current);
  const changedSinceBase = sinceBase.files;
  // What the coder's checkout had that the snapshot cannot vouch for fails the attempt by name.
  const snapshotFindings = [
    ...(await ignoredOutsideSnapshot(state.worktree))
      .filter((path) => !isDependencyLink(state.repoRoot, state.worktree, path))
      .map((path) => `ignored, not in the snapshot: ${path}`),
    ...(await symlinksLeavingRepo(state.worktree, current, changedSinceBase, sinceBase.links)).map(
      (link) => `symlink leaving the repository: ${link}`,
    ),
    // `.devflow/` is devflow's home in the user's checkout (state, artifacts, checkouts): a change
    // that lands there would be written into that home when the branch is checked out, whatever
    // the scope says (catalogue entry fix-lives-in-a-devflow-dir-inside-the-checkout).
    ...changedSinceBase
      .filter((path) => path === DEVFLOW_DIR || path.startsWith(`${DEVFLOW_DIR}/`))
      .map((path) => `in devflow's reserved home ${DEVFLOW_DIR}/: ${path}`),
  ];

  // Integrity first, on the freshly reset checkout: the seam run executes code that could edit it.
  let checkout = await verificationCheckoutAt(state, current);
  // What the coder could write besides the verification checkout: its own checkout and devflow's
  // home in the repository. devflow's own Python questions never run a program from there.
  const attemptDirs = [state.worktree, join(state.repoRoot, DEVFLOW_DIR)];
  // Python modules the attempt added: the seam's runs judge whether anything of the repository asked
  // for them (ADR 0076, part 2). A git read only when the attempt has such files.
  const pythonModules = changedSinceBase.filter((path) => PYTHON_MODULE_FILE.test(path));
  const pythonModulesOnBase =
    pythonModules.length > 0 ? await pathsInTree(state.worktree, state.baseCommit, pythonModules) : new Set();
  const addedPythonModules = pythonModules.filter((path) => !pythonModulesOnBase.has(path));
  // A new module named like one Python loads from outside the checkout would run in its place
  // (review of stop 39): judged on the snapshot's checkout, before any run of it.
  snapshotFindings.push(
    ...(await pythonShadowFindings({
      checkout,
      changedFiles: changedSinceBase,
      seamCommand: contract.seam_command,
      onBase: (paths) => pathsInTree(state.worktree, state.baseCommit, paths),
      attemptDirs,
    })),
  );
  const integrityEnvelope = await runSeamIntegrityVerifier({
    worktree: checkout,
    seamFileHashes: Object.fromEntries(contract.seam_files.map((f) => [f.path, f.sha256])),
    unprotected: contract.seam_files_unprotected ?? [],
    scopeNamed: contract.seam_files_scope_named ?? [],
    changedFiles: changedSinceBase,
    attemptId,
  });
  // The seam is judged with base's test configuration (ADR 0074); integrity (above), regression and
  // the commit see the attempt's. The same checkout unless the attempt changed a configuration file.
  const seamTree = await seamTreeAt(state, current, changedSinceBase, contract.test_config_imports ?? []);
  if (seamTree.tree !== current) checkout = await verificationCheckoutAt(state, seamTree.tree);
  const resetMark = checkoutRunMark(checkout);
  const seamEnvelope = await runSeamVerifier({
    worktree: checkout,
    seam: { command: contract.seam_command, files: seamFiles },
    expectedGreenCondition: contract.expected_green_condition,
    timeoutMs,
    logPath: join(dir, "verifiers", "seam.log"),
    attemptId,
    tests: contract.seam_tests,
    invocation: state.seamInvocation,
    runs: deps.options.seamRuns,
    mounts: verifierMounts(state),
    // A configuration file taken from base is not changed where the seam runs.
    changedFiles: changedSinceBase.filter((file) => !seamTree.fromBase.includes(file)),
    testConfigFromBase: seamTree.fromBase,
    ...(state.contractPinnedAtMs !== null ? { outsideSinceMs: state.contractPinnedAtMs } : {}),
    scopeNamed: contract.scope.allowed_paths,
    computedLoaders: contract.seam_computed_loaders ?? [],
    addedPythonModules,
    changedLinks: sinceBase.links,
    attemptDirs,
    ...signal,
  });
  // Reset again: regression must not see what the seam runs left behind, nor base's test
  // configuration. Skipped only when the seam ran on `current` itself and every seam run since the
  // reset is proven to have written nothing there (each behind its checkout overlay, read back,
  // nothing left running; ADR 0040). The canary's files are devflow's own and removed before the
  // seam verifier returns (it throws otherwise). Without the overlay (stat fallback) the reset always runs.
  if (contract.test_command && (seamTree.tree !== current || !checkoutUntouchedSince(resetMark)))
    checkout = await verificationCheckoutAt(state, current);
  // Read only where a suite runs: without a test command regression is a typed skip.
  const markedSources = contract.test_command ? await markedSourceChanges(state, changedSinceBase) : [];
  // Without a test command this is a typed skip (no_test_command), which the gate turns into a caveat.
  const regressionRun = (worktree: string, changedFiles: readonly string[], log: string) =>
    runRegressionVerifier({
      worktree,
      command: contract.test_command,
      baseline: state.baseline,
      timeoutMs,
      logPath: join(dir, "verifiers", log),
      attemptId,
      seamTests: contract.seam_tests,
      // Against base, whose test setup the baseline recorded: after a re-plan the seam tree holds
      // earlier attempts' changes, and a config change kept from one went unseen (review, stop 41).
      changedFiles,
      allowedPaths: contract.scope.allowed_paths,
      // A test marked expected-to-fail reports as passed when it fails (ADR 0081).
      markedSources,
      mounts: verifierMounts(state),
      ...signal,
    });
  let regression = await regressionRun(checkout, changedSinceBase, "regression.log");
  // The attempt changed test configuration the scope names (the seam ran with base's copy, ADR
  // 0074, or the test command names it): the suite runs once more with base's copy, so a setup
  // file that configuration adds cannot make a broken test pass (ADR 0082). Only when the first run
  // passed: a failure stands.
  if (contract.test_command && regression.overall_result === "pass") {
    const suiteTree = await suiteTreeAt(
      state,
      seamTree,
      changedSinceBase,
      suiteConfigurationFiles(contract.test_command, state.baseline, checkout),
    );
    if (suiteTree.fromBase.length > 0) {
      checkout = await verificationCheckoutAt(state, suiteTree.tree);
      const underBase = await regressionRun(
        checkout,
        changedSinceBase.filter((file) => !suiteTree.fromBase.includes(file)),
        "regression-base-config.log",
      );
      regression = withBaseTestConfig(regression, underBase, suiteTree.fromBase);
    }
  }
  const envelopes: VerifierEnvelope[] = [
    seamEnvelope,
    integrityEnvelope,
    regression,
    await runScopeVerifier({
      changedFiles: cumulative.files,
      scope: contract.scope,
      seamFiles,
      attemptId,
      // Against base, not the seam tree: a fix kept from an earlier attempt (re-plan) is a change.
      changedSinceBase,
      snapshotFindings,
    }),
  ];
  // The requester's scripts (ADR 0056), each on a freshly reset checkout, confined like regression.
  if (state.extraVerifiers.length > 0)
    envelopes.push(
      await runExtraVerifiers({
        verifiers: state.extraVerifiers,
        checkoutAt: (programs) => checkoutWithBasePrograms(state, current, programs),
        changedFiles: changedSinceBase,
        timeoutMs: deps.options.extraVerifierTimeoutMs,
        attemptDir: dir,
        attemptId,
        mounts: verifierMounts(state),
        ...signal,
      }),
    );
  const deterministicPass = envelopes.every(
    (e) => e.overall_result === "pass" || e.overall_result === "skipped",
  );
  // The critic's prompt needs the full task and observation: only the exact pinned revisions are
  // used; anything else is tampering, which the gate reports (the critic is then not asked).
  const task = await deps.store.read("task_artifact").catch(() => null);
  const observation = await deps.store.read("observation_artifact").catch(() => null);
  const pinned =
    task !== null &&
    observation !== null &&
    canonicalSha256(task) === contract.task_artifact_sha256 &&
    canonicalSha256(observation) === contract.observation_artifact_sha256;
  if (deterministicPass && pinned) {
    const report = await deps.store.readAttemptJson(attemptId, "coder_report.json", CoderReport);
    envelopes.push(
      await runCriticVerifier({
        gateway: deps.gateway,
        task,
        observation,
        diffPatch: cumulative.patch,
        diffPath: `attempts/${attemptId}/cumulative.diff.patch`,
        seamEnvelope,
        coderFinalMessage: report?.final_message ?? "",
        attemptId,
      }),
    );
  } else {
    envelopes.push(criticNotAsked(attemptId));
  }
  const results: VerifierEnvelope[] = [];
  for (const envelope of envelopes) {
    results.push(
      await deps.store.writeAttemptJson(
        attemptId,
        `verifiers/${envelope.verifier}.json`,
        VerifierEnvelope,
        envelope,
      ),
    );
    if (results.length === 1) killPoint("verify.envelope-written");
  }
  const summary = envelopes.map((e) => `${e.verifier} ${mark(e.overall_result)}`).join(" ");
  return {
    goto: "gate",
    update: { verifierResults: results },
    line: `${attemptId} ${summary}`,
    attemptId,
    ok: deterministicPass,
    runState: "verifying",
  };
};

function mark(result: VerifierEnvelope["overall_result"]): string {
  return { pass: "✓", fail: "✗", error: "!", skipped: "–" }[result];
}
