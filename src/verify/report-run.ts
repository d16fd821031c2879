import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { z } from "zod";
import type { RepoMounts } from "../process/mount-namespace.js";
import { closeLedger, type Ledger, ledgerProblem, newLedger } from "./assertion-ledger.js";
import { installedBinDirs } from "./installed-bin-dirs.js";
import { NPM_COMMAND, npmIgnoresScripts, npmScriptEnv, withPreScripts } from "./npm-pre-scripts.js";
import { type WithBaseScripts, withBaseScripts } from "./package-manager-run.js";
import { deliverReport, openReportChannel } from "./report-channel.js";
import { runVerifierCommand, type VerifierCommandRun } from "./run-command.js";
import { changedPreloads, pinPreloads } from "./script-preloads.js";
import { withEveryTestRun } from "./test-reports/every-test-run.js";
import {
  detectRunner,
  type PackageTestSetup,
  RUNNER_ADAPTERS,
  RunnerName,
  readPackageTestSetup,
  readReportFile,
  removeStaleReport,
  type TestReport,
} from "./test-reports/index.js";

/**
 * A runner invocation pinned on base: which runner, and the command line that invokes it (the
 * base's test script when the command was `npm test`). Verification runs exactly this, with the
 * runner's report flags added, never the attempt's package.json scripts.
 */
export const RunnerInvocation = z.object({
  runner: RunnerName,
  script: z.string(),
  /**
   * The runner's binaries as resolved in the base checkout's node_modules/.bin (realpath and
   * content hash; null when absent there). Verification calls them by these absolute paths, and an
   * attempt whose checkout resolves them differently is a tamper finding (ADR 0022).
   */
  binaries: z
    .array(z.object({ name: z.string(), path: z.string().nullable(), sha256: z.string().nullable() }))
    .optional(),
  /**
   * Files of the checkout the script preloads into node (`--require=./x.cjs`), with their bytes'
   * hash on base; an attempt that changed one cannot be checked (script-preloads.ts).
   */
  preloads: z.array(z.object({ path: z.string(), sha256: z.string().nullable() })).optional(),
  /**
   * The scripts `npm test` runs before the test script, base's text (`pretest`, `pre<name>`): every
   * run of the pinned script runs them first, as npm would, each in its own `sh -c`.
   */
  preScripts: z.array(z.object({ name: z.string(), script: z.string() })).optional(),
  /**
   * What the package manager gives the test script from base's package.json (`npm_package_*`,
   * `npm_lifecycle_event`): every run of the pinned script gets it, with the paths of the checkout
   * it runs in (`npmScriptEnv`).
   */
  npmEnv: z.record(z.string(), z.string()).optional(),
  /**
   * Set when devflow cannot run the pinned script as the package manager would (it may or may not
   * run a `pre` script, or the script reads npm's configuration): the package command runs as
   * written, and the package manager decides what runs, with package.json's `scripts` replaced by
   * base's for the run and the runner's script asking for the report (ADR 0088). No `preScripts`
   * or `npmEnv` then: both are the package manager's.
   */
  packageManager: z
    .object({
      /** The package command as written (`pnpm test`). */
      command: z.string(),
      /** The script that invokes the runner (`test`, or a delegation's last hop). */
      scriptName: z.string(),
      /** Base's scripts: what the package manager finds in package.json for every run. */
      scripts: z.record(z.string(), z.string()),
      /** Why devflow does not run the script itself. */
      why: z.string(),
    })
    .optional(),
});
export type RunnerInvocation = z.infer<typeof RunnerInvocation>;

/** `npm test`, `npm t`, `npm run test`, `yarn test`, `pnpm test`, with an optional `--silent`/`-s`. */
export const PACKAGE_TEST =
  /^\s*(?:npm\s+(?:test|t|run\s+test|run-script\s+test)|yarn(?:\s+run)?\s+test|pnpm(?:\s+run)?\s+test)(?:\s+(?:--silent|-s))?\s*$/;

export type InvocationResolution =
  | { kind: "runner"; invocation: RunnerInvocation }
  | { kind: "none"; reason: string };

/**
 * Which runner a seam or test command invokes, read in a checkout of base: `npm test` follows
 * the package.json test script; any other command must name the runner itself (`node --test x`,
 * `npx vitest run x`). "none" means the command is judged by its exit code only.
 * `throughPackageManager`: a package command devflow cannot run itself as the package manager
 * would (`notAsWritten`) resolves to an invocation the package manager runs (ADR 0088) instead of
 * none; regression's runs ask for it.
 */
export function resolveInvocation(
  command: string,
  cwd: string,
  options: { throughPackageManager?: boolean } = {},
): InvocationResolution {
  let setup: PackageTestSetup | null;
  if (PACKAGE_TEST.test(command)) {
    let text: string;
    try {
      text = readFileSync(join(cwd, "package.json"), "utf8");
    } catch {
      return { kind: "none", reason: "no package.json to read the test script from" };
    }
    setup = readPackageTestSetup(text);
  } else {
    setup = { script: command, dependencies: [] };
  }
  const detection = detectRunner(setup);
  if (detection.kind === "none") return { kind: "none", reason: detection.reason };
  // What devflow would run is not what the package manager runs: the command stays as written.
  const unlike = PACKAGE_TEST.test(command) ? notAsWritten(command, setup) : null;
  const managed =
    unlike !== null && options.throughPackageManager === true && setup?.scriptName && setup.scripts
      ? { command: command.trim(), scriptName: setup.scriptName, scripts: { ...setup.scripts }, why: unlike }
      : null;
  if (unlike !== null && managed === null) return { kind: "none", reason: unlike };
  const runner = detection.adapter.runner;
  const names = RUNNER_BINARIES[runner] ?? [];
  const invocation: RunnerInvocation = { runner, script: detection.script };
  if (names.length > 0) invocation.binaries = names.map((n) => resolveBinary(cwd, n));
  const preloads = pinPreloads(detection.script, cwd);
  if (preloads.length > 0) invocation.preloads = preloads;
  if (managed !== null) {
    invocation.packageManager = managed;
    return { kind: "runner", invocation };
  }
  // `pretest` only under `npm test` (a yarn or pnpm command with one stays as written, above);
  // `pre<name>` of an npm hop whoever started the script, since npm runs that hop (review, stop 47,
  // attack 51: under `yarn test` a `npm run -s test:unit` hop's build was dropped). None when the
  // project's .npmrc says `ignore-scripts` (review, stop 46: a red lint in `pretest` npm never ran).
  const preScripts = npmIgnoresScripts(cwd)
    ? []
    : (setup?.npmPreScripts ?? []).filter((pre) => pre.name !== "pretest" || NPM_COMMAND.test(command));
  if (preScripts.length > 0) invocation.preScripts = [...preScripts];
  if (PACKAGE_TEST.test(command) && setup?.npmEnv) invocation.npmEnv = { ...setup.npmEnv };
  return { kind: "runner", invocation };
}

/**
 * Why the pinned script (with its pre scripts) would not be what the package command runs, or null:
 * a `pretest` under yarn or pnpm (yarn 1 runs it, yarn 2+ does not, pnpm only when configured), or
 * what `readPackageTestSetup` found (a yarn or pnpm hop's `pre<name>`, npm's configuration read).
 */
function notAsWritten(command: string, setup: PackageTestSetup | null): string | null {
  const pretest = setup?.npmPreScripts?.some((pre) => pre.name === "pretest") ?? false;
  if (pretest && !NPM_COMMAND.test(command))
    return `\`${command.trim()}\` may or may not run \`pretest\` (yarn 1 and pnpm with enable-pre-post-scripts do, yarn 2+ and pnpm by default do not)`;
  return setup?.notAsThePackageManagerRuns ?? null;
}

/** The node_modules/.bin names a runner's script may call (node itself is always devflow's node). */
const RUNNER_BINARIES: Partial<Record<RunnerName, readonly string[]>> = {
  mocha: ["mocha", "_mocha"],
  jest: ["jest"],
  vitest: ["vitest"],
  tape: ["tape"],
};

type PinnedBinary = NonNullable<RunnerInvocation["binaries"]>[number];

/** Where `name` resolves in `cwd`'s node_modules/.bin: realpath and content hash (nulls: absent). */
export function resolveBinary(cwd: string, name: string): PinnedBinary {
  const link = join(cwd, "node_modules", ".bin", name);
  if (!existsSync(link)) return { name, path: null, sha256: null };
  try {
    const path = realpathSync(link);
    return { name, path, sha256: createHash("sha256").update(readFileSync(path)).digest("hex") };
  } catch {
    return { name, path: null, sha256: null };
  }
}

/** Pinned binaries the checkout in `cwd` now resolves differently (another file or other bytes). */
export function changedBinaries(invocation: RunnerInvocation, cwd: string): string[] {
  const changed: string[] = [];
  for (const pinned of invocation.binaries ?? []) {
    const now = resolveBinary(cwd, pinned.name);
    if (now.path !== pinned.path || now.sha256 !== pinned.sha256)
      changed.push(
        `node_modules/.bin/${pinned.name} resolves to ${now.path ?? "nothing"} (${now.sha256?.slice(0, 12) ?? "-"}), not ${pinned.path ?? "nothing"} (${pinned.sha256?.slice(0, 12) ?? "-"}) as on base`,
      );
  }
  return changed;
}

/**
 * A bin directory of devflow's own (next to the log, outside the checkout) that comes first on
 * PATH: \`node\` is the node running devflow (process.execPath), each pinned runner binary is its
 * base path. Nothing the coder writes into the checkout's node_modules/.bin can shadow them.
 */
export function pinnedBinDir(binaries: readonly PinnedBinary[], logPath: string): string {
  const dir = `${logPath}.bin`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  symlinkSync(process.execPath, join(dir, "node"));
  for (const b of binaries) if (b.path) symlinkSync(b.path, join(dir, b.name));
  return dir;
}

export interface ReportRun {
  run: VerifierCommandRun;
  /** The runner's report; null when the script could not be rewritten to write one. */
  report: TestReport | null;
  /** The command actually run (the pinned script plus report flags). */
  command: string;
  /** Why no report was asked for, or null. */
  unsupported: string | null;
}

export interface ReportRunInput {
  invocation: RunnerInvocation;
  cwd: string;
  timeoutMs: number;
  logPath: string;
  /**
   * Outside the checkout, in a directory of its own (`reportPathFor`): removed before the run so a
   * dead runner cannot leave an old report. With `mounts` that directory is the one place of
   * devflow's home besides the checkout the run may write.
   */
  reportPath: string;
  /**
   * Append the runner's arguments that undo a stop at the first failure (ADR 0083): regression's
   * runs, never the seam's (whose failing tests are named on base and must each pass now).
   */
  runEveryTest?: boolean;
  /** Added to the run's environment (regression's canary plugin, ADR 0079). */
  env?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  /** The mount namespace of the run (ADR 0031); see VerifierCommand.mounts. */
  mounts?: RepoMounts;
  /** Record the files the run opens (ADR 0072); see VerifierCommand.traceOpens. */
  traceOpens?: boolean;
}

/** A run that was refused before it started (nothing ran, nothing was output). */
function notRun(failure: string): VerifierCommandRun {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    spawnError: null,
    output: "",
    outputTruncated: false,
    totalOutputBytes: 0,
    durationMs: 0,
    survivors: [],
    pidNamespace: false,
    excerpt: "",
    failure,
  };
}

/** The run's result when preload files of the test command differ from base (script-preloads.ts). */
function preloadTamper(paths: string[], command: string, run?: VerifierCommandRun): ReportRun {
  const failure = `tamper: the test command preloads ${paths.join(", ")}, which differ${paths.length === 1 ? "s" : ""} from base: a changed test setup cannot be checked`;
  return {
    run: run ? { ...run, failure } : notRun(failure),
    report: null,
    command,
    unsupported: null,
  };
}

/** Why `invocation`'s runner cannot be asked for a report (its script names its own reporter), or null. */
export function reportUnsupported(invocation: RunnerInvocation): string | null {
  const request = adapterOf(invocation).command(invocation.script, "report");
  return request.kind === "report_file" ? null : request.reason;
}

function adapterOf(invocation: RunnerInvocation): (typeof RUNNER_ADAPTERS)[number] {
  const adapter = RUNNER_ADAPTERS.find((a) => a.runner === invocation.runner);
  if (!adapter) throw new Error(`no adapter for runner ${invocation.runner}`);
  return adapter;
}

/** Runs a pinned runner invocation with its report flags, in `cwd`, and reads the report. */
export async function runWithReport(input: ReportRunInput): Promise<ReportRun> {
  const adapter = adapterOf(input.invocation);
  const request = adapter.command(input.invocation.script, input.reportPath);
  const reported = request.kind === "report_file" ? request.command : input.invocation.script;
  const runnerScript = input.runEveryTest ? withEveryTestRun(adapter, reported, input.cwd) : reported;
  const managed = input.invocation.packageManager;
  const command = managed ? managed.command : withPreScripts(input.invocation.preScripts, runnerScript);
  await removeStaleReport(input.reportPath);
  const reportDir = dirname(input.reportPath);
  mkdirSync(reportDir, { recursive: true });
  const tampered = changedBinaries(input.invocation, input.cwd);
  // A changed preload is not run at all: it would execute in the runner before devflow's preloads.
  const preloadsBefore = changedPreloads(input.invocation.preloads, input.invocation.script, input.cwd);
  if (preloadsBefore.length > 0) return preloadTamper(preloadsBefore, command);
  const binDir = pinnedBinDir(input.invocation.binaries ?? [], input.logPath);
  // node:test's report can be forged by the code under test; the ledger says what really ran (ADR 0048).
  const ledger: Ledger | null =
    request.kind === "report_file" && adapter.runner === "node-test"
      ? newLedger(join(reportDir, "ledger"))
      : null;
  // A report the run could rewrite is not evidence: this runner's comes over a channel (ADR 0089).
  const channel =
    request.kind === "report_file" && request.via === "channel"
      ? await openReportChannel(adapter.runner)
      : null;
  const verifierRun = () =>
    runVerifierCommand({
      command,
      cwd: input.cwd,
      timeoutMs: input.timeoutMs,
      logPath: input.logPath,
      env: {
        ...npmScriptEnv(input.invocation, input.cwd),
        ...input.env,
        ...(request.kind === "report_file" ? request.env : {}),
        ...ledger?.env,
        ...channel?.env,
      },
      // Through the package manager, the user's installed binaries only (as a console run has them):
      // the package command itself must not come from a node_modules the tree holds.
      pathPrefix: [
        binDir,
        ...(managed ? installedBinDirs(input.cwd, input.mounts) : [join(input.cwd, "node_modules", ".bin")]),
      ].join(delimiter),
      ...(input.traceOpens ? { traceOpens: true } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.mounts
        ? {
            mounts: input.mounts,
            // The runner writes its report; the pinned binaries are only read.
            alsoExpose: [
              { path: reportDir, writable: true },
              { path: binDir, writable: false },
            ],
          }
        : {}),
    });
  // Through the package manager, package.json holds base's scripts for the run (ADR 0088).
  let ran: WithBaseScripts<VerifierCommandRun>;
  try {
    ran = managed
      ? await withBaseScripts(input.cwd, managed, runnerScript, verifierRun)
      : { kind: "ran" as const, value: await verifierRun() };
  } catch (error) {
    await channel?.close();
    throw error;
  } finally {
    if (ledger) closeLedger(ledger);
  }
  const delivered = channel ? await deliverReport(channel, input.reportPath) : null;
  if (ran.kind === "refused") return { run: notRun(ran.failure), report: null, command, unsupported: null };
  const run = delivered ? { ...ran.value, failure: ran.value.failure ?? delivered } : ran.value;
  // Checked after the run too: a test process could rewrite a preload for the next run.
  const preloadsAfter = changedPreloads(input.invocation.preloads, input.invocation.script, input.cwd);
  if (preloadsAfter.length > 0) return preloadTamper(preloadsAfter, command, run);
  const after = changedBinaries(input.invocation, input.cwd);
  if (tampered.length > 0 || after.length > 0)
    return {
      run: {
        ...run,
        failure: `tamper: the runner binaries differ from base: ${[...new Set([...tampered, ...after])].join("; ")}`,
      },
      report: null,
      command,
      unsupported: null,
    };
  if (request.kind !== "report_file") return { run, report: null, command, unsupported: request.reason };
  const report = await readReportFile(adapter, input.reportPath, input.cwd);
  const forged = ledger && !run.failure ? ledgerProblem(ledger, report, input.cwd) : null;
  if (forged) return { run: { ...run, failure: `tamper: ${forged}` }, report, command, unsupported: null };
  return { run, report, command, unsupported: null };
}

/**
 * The report file of a log's run, in a directory of its own next to the log (devflow's, outside
 * any checkout): in a mount namespace only that directory is writable, not the log's (ADR 0031).
 */
export const reportPathFor = (logPath: string): string => join(`${logPath}.out`, "report");
