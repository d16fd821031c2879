import { randomBytes } from "node:crypto";
import { mkdir, realpath, rm } from "node:fs/promises";
import { delimiter, dirname, isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import {
  endMarkedProcesses,
  markedProcessesMayLive,
  newRunMarker,
  processesWithMarker,
} from "../process/containment.js";
import { baseEnv } from "../process/env.js";
import {
  checkoutOverlayChanges,
  checkoutOverlayMounted,
  checkoutOverlayWorks,
  type ExposedDir,
  mountNamespaceInUse,
  type RepoMounts,
  removeOverlayUpper,
} from "../process/mount-namespace.js";
import { runProcess } from "../process/run-process.js";
import { newScratchDir } from "../process/scratch-dir.js";
import type { ProcessRunResult } from "../process/types.js";
import { excerpt } from "../util/truncate.js";
import { watchCheckoutDirectories } from "./checkout-dir-watch.js";
import { recordRunLeftCheckoutUntouched, recordRunSettled, recordRunStarted } from "./checkout-run-ledger.js";
import { changedSinceStat, statCheckout } from "./checkout-stat.js";
import { ENVELOPE_EXCERPT_BYTES } from "./envelope.js";
import { packageManagerNodeOptions } from "./package-manager-node-options.js";

/**
 * Output kept in memory (and in the log) per verification command. Test parsing needs the whole
 * output, so this is far above the envelope excerpt; beyond it the run is compared by exit code.
 */
export const FULL_OUTPUT_CAP_BYTES = 16 * 1024 * 1024;

export interface VerifierCommand {
  command: string;
  cwd: string;
  timeoutMs: number;
  /** The full (redacted) output is written here; envelopes cite it in evidence_refs. */
  logPath: string;
  signal?: AbortSignal;
  /** Prepended to PATH (e.g. the checkout's node_modules/.bin, as npm does for scripts). */
  pathPrefix?: string;
  /**
   * Where mount namespaces work: the user's checkout read-only and devflow's home hidden but for
   * this command's checkout (`cwd`) and its own report/bin directories (ADR 0031). The lane always
   * passes it; without it the command runs in the PID namespace only.
   */
  mounts?: RepoMounts;
  /** With `mounts`: directories of devflow's home the command needs besides `cwd` (its report, its bin dir). */
  alsoExpose?: readonly ExposedDir[];
  /** Added to the command's environment (the assertion ledger's key and directory, ADR 0048). */
  env?: Readonly<Record<string, string>>;
  /** NODE_OPTIONS words put before devflow's preloads (a Verification block's guard, ADR 0063). */
  nodeOptions?: string;
  /** Record the files the run opens (ADR 0072); the result's `openTrace` carries them. */
  traceOpens?: boolean;
}

export interface VerifierCommandRun extends ProcessRunResult {
  /** At most ENVELOPE_EXCERPT_BYTES of the output, head and tail. */
  excerpt: string;
  /** Why the command could not produce a verdict (timeout, abort, spawn failure), or null. */
  failure: string | null;
  /** The run's own temp dir (its TMPDIR), made just before it and removed once it returned. */
  tempDir?: string;
}

// Non-interactive and colourless: watch modes stay off and per-test lines stay parseable.
const QUIET_ENV = { CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" };

/**
 * Python in a verification run neither reads nor writes the checkout's `__pycache__`: bytecode there
 * is loaded instead of its source when its header says so (an unchecked-hash .pyc, or a timestamp
 * one whose recorded mtime and size match), so a coder could leave a compiled fix, or fake, beside
 * unchanged source. The cache prefix is a fresh path per run that nothing creates (nothing is
 * written: PYTHONDONTWRITEBYTECODE), so every module compiles from the source in the checkout.
 */
function pythonBytecodeEnv(logPath: string): Record<string, string> {
  return {
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONPYCACHEPREFIX: `${logPath}.no-pycache-${randomBytes(6).toString("hex")}`,
  };
}

/**
 * devflow's preload for every node process of a verification run (ADR 0040): pins node:assert and
 * node:assert/strict before the code under test loads, so neutering them throws. From devflow's
 * install (read-only in the mount namespace), never the checkout; a URL, so no path needs quoting.
 */
export const ASSERT_FREEZE_PRELOAD = new URL("./assert-freeze.mjs", import.meta.url);

/**
 * NODE_OPTIONS of a verification run: devflow's preloads only (the user's own NODE_OPTIONS are not
 * inherited, env.ts): the assert freeze, then the assertion ledger (ADR 0048), which does nothing
 * unless the run was given a ledger key.
 */
export const VERIFIER_NODE_OPTIONS = [
  `--require=${nodeOptionsQuoted(fileURLToPath(new URL("./assertion-ledger-key.cjs", import.meta.url)))}`,
  `--import=${ASSERT_FREEZE_PRELOAD.href}`,
  `--import=${new URL("./assertion-ledger.mjs", import.meta.url).href}`,
].join(" ");

/** A path as one NODE_OPTIONS word (double quotes, with `"` and `\` escaped). */
function nodeOptionsQuoted(path: string): string {
  return `"${path.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * Runs a seam or test command through the shared process runner, confined like a coder (ADR 0020,
 * 0023, 0031): its own process group, its own PID namespace where available, its own run marker,
 * and with `mounts` its own mount namespace where that works (the user's checkout read-only,
 * devflow's home hidden but for the verification checkout it runs in).
 * The command runs the coder's code, so anything it starts is the coder's: after it returns, every
 * process still carrying the marker is ended, and one that cannot be ended makes the run a
 * `process_survived` failure (an error verdict, never a pass).
 */
export async function runVerifierCommand(cmd: VerifierCommand): Promise<VerifierCommandRun> {
  // Before anything else: a run that throws from here on stays unproven in the ledger (fail closed).
  recordRunStarted(cmd.cwd);
  try {
    return await runCountedVerifierCommand(cmd);
  } finally {
    // Over, proven or not: the ledger knows no run of this checkout is in flight any more.
    recordRunSettled(cmd.cwd);
  }
}

async function runCountedVerifierCommand(cmd: VerifierCommand): Promise<VerifierCommandRun> {
  await mkdir(dirname(cmd.logPath), { recursive: true });
  // A temp dir of the run's own (ADR 0074): what a tool caches under TMPDIR (tsx's compiled
  // modules) is written by this run, never read from the coder's runs or an earlier seam run, so a
  // seam run that loads it is not judged to have loaded code from outside that changed during the task.
  // Its real path: what the run's trace records (a /tmp that is a link, as on macOS, is resolved).
  // Named as a scratch dir of this devflow process: a run SIGKILLed with it is swept by the next start.
  const runTemp = await realpath(await newScratchDir("run"));
  try {
    return await runInOwnTemp(cmd, runTemp);
  } finally {
    await rm(runTemp, { recursive: true, force: true, maxRetries: 2 });
  }
}

async function runInOwnTemp(cmd: VerifierCommand, runTemp: string): Promise<VerifierCommandRun> {
  // The checkout overlay's upper layer (ADR 0040): next to the log, inside devflow's hidden home.
  const overlayUpper = `${cmd.logPath}.upper`;
  if (cmd.mounts) {
    removeOverlayUpper(overlayUpper);
    await mkdir(overlayUpper, { recursive: true });
  }
  // Where the overlay is not known to work (no namespace, overlayfs refused by this home's file
  // system), the checkout's stat stands in: it catches the same writes, ctime showing a file put
  // back. Known: probed once per home before the first run (one small mount instead of a stat walk
  // of the whole checkout), or seen mounted by an earlier run.
  const overlayTrusted =
    cmd.mounts !== undefined &&
    mountNamespaceInUse() !== null &&
    (overlaySeenWorking || checkoutOverlayWorks(cmd.mounts));
  const statBefore = overlayTrusted ? null : statCheckout(cmd.cwd, ownOutputInside(cmd));
  // The stat sees files only: a directory renamed away and back keeps its files' stat (ADR 0048).
  const dirWatch = overlayTrusted ? null : watchCheckoutDirectories(cmd.cwd, ownOutputInside(cmd));
  const runMarker = newRunMarker();
  const nodeOptions = cmd.nodeOptions ? `${cmd.nodeOptions} ${VERIFIER_NODE_OPTIONS}` : VERIFIER_NODE_OPTIONS;
  const ran = async () => {
    const result = await runProcess({
      confine: true,
      runMarker,
      command: cmd.command,
      shell: true,
      cwd: cmd.cwd,
      env: withPathPrefix(
        baseEnv({
          ...QUIET_ENV,
          ...pythonBytecodeEnv(cmd.logPath),
          TMPDIR: runTemp,
          TMP: runTemp,
          TEMP: runTemp,
          ...cmd.env,
          NODE_OPTIONS: nodeOptions,
          // A package manager the command starts replaces NODE_OPTIONS with its own setting.
          npm_config_node_options: packageManagerNodeOptions(cmd.cwd, nodeOptions),
        }),
        cmd.pathPrefix,
      ),
      ...(cmd.mounts
        ? {
            mounts: {
              ...cmd.mounts,
              expose: cmd.cwd,
              alsoExpose: cmd.alsoExpose ?? [],
              overlayUpper,
              writable: [runTemp],
            },
          }
        : {}),
      stdin: "closed",
      ...(cmd.traceOpens ? { traceOpens: true } : {}),
      timeoutMs: cmd.timeoutMs,
      signal: cmd.signal,
      transcriptPath: cmd.logPath,
      maxOutputBytes: FULL_OUTPUT_CAP_BYTES,
      maxExcerptBytes: FULL_OUTPUT_CAP_BYTES,
    });
    // runProcess already ended what it found; a process started after its scan is caught here.
    const lingering =
      markedProcessesMayLive(runMarker) && processesWithMarker(runMarker).length > 0
        ? await endMarkedProcesses(runMarker)
        : [];
    return { result, lingering };
  };
  // The watches are closed on every path: a run that throws must not leave inotify watches behind
  // (in a long-lived daemon they would pile up until every run fails as "could not be watched").
  let ranResult: Awaited<ReturnType<typeof ran>>;
  try {
    ranResult = await ran();
  } catch (error) {
    await dirWatch?.stop();
    throw error;
  }
  const { result, lingering } = ranResult;
  const survivors = [...new Set([...result.survivors, ...lingering])];
  let overlay: string[] | null = null;
  let unreadable: string | null = null;
  try {
    overlay = cmd.mounts ? await readOverlay(overlayUpper, cmd.cwd) : null;
  } catch (e) {
    // Fail closed: what the run changed cannot be told, so nothing it reported may count.
    unreadable = `the verification checkout's overlay could not be read after the run: ${e instanceof Error ? e.message : String(e)}`;
    overlay = [];
  }
  if (overlay) overlaySeenWorking = true;
  // The run's writes went to the upper layer just thrown away, and nothing of it runs on: the
  // checkout is as it was before the run (the verify node may skip its reset before regression).
  if (overlay !== null && unreadable === null && survivors.length === 0)
    recordRunLeftCheckoutUntouched(cmd.cwd);
  const dirs = dirWatch ? await dirWatch.stop() : { moved: [], unwatched: null };
  const trackedChanged = [
    ...new Set([...(overlay ?? []), ...(statBefore ? changedSinceStat(statBefore, cmd.cwd) : [])]),
  ];
  const unchecked =
    overlayTrusted && !overlay
      ? "the verification checkout's overlay could not be mounted (it mounted before in this repository), so the run's writes to tracked files cannot be checked"
      : null;
  return {
    ...result,
    survivors,
    tempDir: runTemp,
    excerpt: excerpt(result.output, ENVELOPE_EXCERPT_BYTES).text,
    failure:
      failureOf(cmd, { ...result, survivors }) ??
      unreadable ??
      unchecked ??
      changedTrackedFailure(trackedChanged.sort()) ??
      movedDirectoryFailure(dirs.moved) ??
      (dirs.unwatched
        ? `the verification checkout's directories could not be watched (${dirs.unwatched}), so a directory the run swaps cannot be checked`
        : null),
  };
}

/** The log's directory when a caller put it inside the checkout (unit tests): devflow writes there during the run. */
function ownOutputInside(cmd: VerifierCommand): string[] {
  const rel = relative(cmd.cwd, dirname(cmd.logPath));
  return rel && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
    ? [rel.split(sep).join("/")]
    : [];
}

/** Set once a run's checkout overlay was mounted: from then on no stat of the checkout is needed. */
let overlaySeenWorking = false;

/**
 * The files of the checkout the run changed behind the overlay (null: no overlay was mounted), then
 * the upper layer thrown away.
 */
async function readOverlay(overlayUpper: string, checkout: string): Promise<string[] | null> {
  try {
    return checkoutOverlayMounted(overlayUpper) ? checkoutOverlayChanges(overlayUpper, checkout) : null;
  } finally {
    removeOverlayUpper(overlayUpper);
  }
}

const MAX_NAMED_FILES = 10;

/**
 * A verification run may write untracked files (temp dirs, coverage, runner caches), never the
 * files it is judged on: a test that repairs the source before the other tests load it, and puts
 * it back at exit, would make a broken change pass (ADR 0040).
 */
function changedTrackedFailure(files: readonly string[]): string | null {
  if (files.length === 0) return null;
  const named = files.slice(0, MAX_NAMED_FILES).join(", ");
  const more = files.length > MAX_NAMED_FILES ? ` and ${files.length - MAX_NAMED_FILES} more` : "";
  return `tamper: the test run changed tracked file${files.length > 1 ? "s" : ""} ${named}${more} (a test run may write only untracked files)`;
}

/** A tracked directory renamed away and back: its files are the same, but the run loaded others (ADR 0048). */
function movedDirectoryFailure(dirs: readonly string[]): string | null {
  if (dirs.length === 0) return null;
  const named = dirs.slice(0, MAX_NAMED_FILES).join(", ");
  const more = dirs.length > MAX_NAMED_FILES ? ` and ${dirs.length - MAX_NAMED_FILES} more` : "";
  return `tamper: the test run moved tracked director${dirs.length > 1 ? "ies" : "y"} ${named}${more} (a test run may write only untracked files)`;
}

function withPathPrefix(env: Record<string, string>, prefix: string | undefined): Record<string, string> {
  if (!prefix) return env;
  return { ...env, PATH: env.PATH ? `${prefix}${delimiter}${env.PATH}` : prefix };
}

/** Sets the limit of seam, regression and readiness runs (seconds); read by the iterate lane. */
export const TEST_TIMEOUT_ENV = "DEVFLOW_TEST_TIMEOUT";

function failureOf(cmd: VerifierCommand, r: ProcessRunResult): string | null {
  if (r.survivors.length > 0)
    return `process_survived: process(es) ${r.survivors.join(", ")} started by \`${cmd.command}\` could not be ended; nothing it ran may count while they can still change the worktree`;
  if (r.spawnError) return `could not start \`${cmd.command}\`: ${r.spawnError}`;
  if (r.timedOut)
    return `\`${cmd.command}\` timed out after ${formatMs(cmd.timeoutMs)} and was killed (the test-command limit: raise it with ${TEST_TIMEOUT_ENV}=<seconds>)`;
  if (r.aborted) return `\`${cmd.command}\` was aborted before it finished`;
  return null;
}

/** A shell's "command not found" (127) or "not executable" (126): the command itself is wrong. */
export function commandMissing(r: ProcessRunResult): boolean {
  return r.exitCode === 127 || r.exitCode === 126;
}

const formatMs = (ms: number): string => (ms < 1000 ? `${ms}ms` : `${Math.round(ms / 1000)}s`);
