import { cpSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { runObserverAgent } from "../../../agents/observer/observer-agent.js";
import type { ObservationArtifact, ObservationFindings } from "../../../artifacts/schemas/index.js";
import { killPoint } from "../../../util/test-kill-point.js";
import { nowIso } from "../../../util/time.js";
import {
  checkSeamRedOnBase,
  hashSeamFiles,
  mockFilesOf,
  pytestSeamFiles,
  pythonComputedLoaders,
  readsMocks,
  runnerSetupFiles,
  SEAM_DATA_FOLDER_LIMIT,
  type SeamBaseCheck,
  seamDataFiles,
  seamHelpers,
  testConfigImports,
} from "../../../verify/index.js";
import {
  listGitFiles,
  type PathChange,
  pathChanges,
  repoMap,
  snapshotTree,
} from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { transition } from "../lane/run-record.js";
import { verificationCheckoutAt, verifierMounts } from "../lane/verification-checkout.js";

/**
 * Observer: evidence and a failing seam, then devflow's own check that the seam really is red on
 * the untouched base. A seam claimed red that runs green is recorded as not_confirmed.
 */
export const observe: NodeBody = async (state, deps) => {
  await transition(deps.store, "observing", "gathering evidence and a failing seam");
  const task = await deps.store.read("task_artifact");
  if (!task) throw new Error("observe: task_artifact.json is missing");

  const { findings, writtenFiles, toolCalls } = await runObserverAgent({
    gateway: deps.gateway,
    task,
    worktree: state.worktree,
    repoMap: await repoMap(state.worktree, { maxFiles: 300 }),
    signal: deps.signal,
    // Its commands run the repository's code (and, on a re-observation, a coder's): confined like
    // the verification commands, so they cannot write the user's checkout, devflow's files or the
    // user's dependencies, and nothing they start outlives them (ADR 0031).
    confinement: { mounts: { ...verifierMounts(state), expose: state.worktree } },
  });

  // The seam's files: what the Observer named plus every test file it wrote, and (once the seam
  // ran on base) every file its verdict rests on that the Observer did not list (ADR 0019).
  let seamFiles = [...new Set([...(findings.failing_seam?.files ?? []), ...writtenFiles])].sort();
  let checked: ObservationFindings = findings;
  let seamCheck: ObservationArtifact["seam_check"] = null;
  let pinned: { seamTests: string[]; seamInvocation: SeamBaseCheck["invocation"] } = {
    seamTests: [],
    seamInvocation: null,
  };
  // What of the seam's test code could not be fingerprinted: a caveat of every pass (the gate's).
  let unprotected: string[] = [];
  let computedLoaders: string[] = [];
  // Evidence left editable because the scope names it exactly: a completed verdict says it changed.
  const scopeNamed = new Set<string>();
  let configImports: string[] = [];
  if (findings.failing_seam) {
    const seam = findings.failing_seam;
    // "Untouched base" literally: a clean checkout of the base commit plus only the seam's files, so
    // a re-observation after earlier attempts (re-plan) cannot see their changes. It is the task's
    // verification checkout reset to base (ADR 0024); the next reset removes the copied seam files.
    const base = await verificationCheckoutAt(state, state.baseCommit);
    copySeamFiles(state.worktree, base, seamFiles);
    const red = await checkSeamRedOnBase({
      cwd: base,
      command: seam.command,
      timeoutMs: deps.options.commandTimeoutMs,
      logPath: join(deps.store.dir, "seam_on_base.log"),
      mounts: verifierMounts(state),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    seamFiles = [...new Set([...seamFiles, ...red.evidenceFiles])].sort();
    // And the setup files the runner config runs with every test, the test code all those load
    // (helpers, fixtures), read on base: ADR 0019 amendments 2 and 3.
    // A file the task's scope names exactly is what the request is about (a broken jest setup, an
    // outdated fixture): it stays editable, as regression's rule for runner configs has it.
    const named = new Set(task.scope_boundary.allowed_paths);
    const withDerived = (more: readonly string[]) => {
      for (const f of more) if (named.has(f)) scopeNamed.add(f);
      return [...new Set([...seamFiles, ...more.filter((f) => !named.has(f))])].sort();
    };
    seamFiles = withDerived(runnerSetupFiles(base, seamFiles, seam.command));
    // The mocks jest applies by itself (and the test code they load, walked below) stand in for
    // modules as the seam runs: pinned like its files (review, stop 32: a mock's helper edited
    // instead of the mock made the seam pass).
    // (The repository is listed only when the runner may read mocks: a pytest seam has no use for it.)
    const runner = red.invocation?.runner;
    const tracked = (await listGitFiles(base)) ?? [];
    if (readsMocks(runner)) seamFiles = withDerived(mockFilesOf(tracked, runner));
    // What base's test configuration loads: the seam runs with base's copy of it (ADR 0074).
    configImports = await testConfigImports(base, tracked, seamFiles, seam.command);
    const helpers = await seamHelpers(seamFiles, base);
    seamFiles = withDerived(helpers.files);
    computedLoaders = helpers.computedLoaders;
    // pytest's conftest.py, plugins and imported test modules, and the paths that must stay
    // absent (a new conftest.py or a module shadowing the one the test imports): amendment 4.
    seamFiles = withDerived(pytestSeamFiles(base, seamFiles, seam.command));
    computedLoaders = [...new Set([...computedLoaders, ...pythonComputedLoaders(base, seamFiles)])].sort();
    // And the test data all that code names (fixtures, expected outputs, snapshots): amendment 3.
    const limit = deps.options.seamDataFolderLimit ?? SEAM_DATA_FOLDER_LIMIT;
    const data = seamDataFiles(seamFiles, base, limit);
    seamFiles = withDerived(data.files);
    unprotected = [
      ...helpers.unreadable.map((f) => `${f} (its imports could not be read)`),
      ...data.tooLarge.map((d) => `${d}/ (over ${limit} files)`),
    ];
    const helperCaveat =
      unprotected.length > 0
        ? `test code the seam's files load or read is not protected from edits: ${unprotected.join(", ")}`
        : null;
    seamCheck = {
      ran: red.ran,
      exit_code: red.exitCode,
      red: red.ran && red.red,
      output_excerpt: red.outputExcerpt,
      log_ref: "seam_on_base.log",
      checked_at: nowIso(),
      message: red.message,
      tests: red.tests,
      caveat: [red.caveat, helperCaveat].filter((c) => c !== null).join("; ") || null,
    };
    // The seam's tests that failed by name on base: what the seam verifier must see pass.
    if (seamCheck.red) pinned = { seamTests: red.tests, seamInvocation: red.invocation };
    if (!seamCheck.red)
      checked = downgradeUnconfirmed(findings, red.ran ? "passes" : `could not run (${red.message})`);
  } else if (findings.verdict === "ready_for_coder") {
    checked = {
      ...findings,
      status: "not_confirmed",
      verdict: "needs_more_context",
      questions: [
        ...findings.questions,
        "The observer found no failing check; how can the problem be reproduced?",
      ],
    };
  }

  killPoint("observe.seam-checked");
  if (checked.failing_seam)
    checked = { ...checked, failing_seam: { ...checked.failing_seam, files: seamFiles } };

  const previous = await deps.store.read("observation_artifact");
  const now = nowIso();
  const observation = await deps.store.write(
    "observation_artifact",
    {
      ...checked,
      artifact: "observation_artifact",
      task_id: state.taskId,
      task_revision: task.revision,
      observer_claimed_status: findings.status,
      seam_check: seamCheck,
      created_at: previous?.created_at ?? now,
      updated_at: now,
    },
    { expectedRevision: previous?.revision ?? 0 },
  );

  return {
    update: {
      seamFileHashes: await hashSeamFiles(state.worktree, seamFiles),
      seamUnprotected: unprotected,
      seamComputedLoaders: computedLoaders,
      seamScopeNamed: [...scopeNamed].sort(),
      testConfigImports: configImports,
      ...pinned,
      ...(await seamTreeAndChange(state.worktree, state.baseCommit)),
      // A new observation (e.g. after a re-plan) restarts the diff chain at its seam tree.
      attemptTree: null,
    },
    line: `observation_artifact r${observation.revision} (${observation.status}, ${observation.verdict})`,
    ok: observation.verdict === "ready_for_coder",
    runState: "observing",
    detail: { revision: observation.revision, tool_calls: toolCalls, seam_red: seamCheck?.red ?? null },
  };
};

/** The tree attempt diffs start from, and what it changes from base (verify composes from it). */
async function seamTreeAndChange(
  worktree: string,
  baseCommit: string,
): Promise<{ seamTree: string; seamSinceBase: PathChange[] }> {
  const seamTree = await snapshotTree(worktree);
  return { seamTree, seamSinceBase: await pathChanges(worktree, baseCommit, seamTree) };
}

function copySeamFiles(from: string, to: string, files: string[]): void {
  for (const file of files) {
    const source = join(from, file);
    if (!existsSync(source)) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(source, join(to, file), { recursive: true });
  }
}

function downgradeUnconfirmed(findings: ObservationFindings, what: string): ObservationFindings {
  const command = findings.failing_seam?.command ?? "";
  return {
    ...findings,
    status: "not_confirmed",
    verdict: findings.verdict === "ready_for_coder" ? "needs_more_context" : findings.verdict,
    summary: `${findings.summary}\n\ndevflow check: the seam \`${command}\` ${what} on the untouched base, so the problem is not confirmed.`,
    questions: [
      ...findings.questions,
      `The check \`${command}\` ${what} before any change. What exact input or steps reproduce the problem?`,
    ],
  };
}
