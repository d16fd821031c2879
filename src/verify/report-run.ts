import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { runVerifierCommand, type VerifierCommandRun } from "./run-command.js";
import {
  detectRunner,
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
export const RunnerInvocation = z.object({ runner: RunnerName, script: z.string() });
export type RunnerInvocation = z.infer<typeof RunnerInvocation>;

/** `npm test`, `npm t`, `npm run test`, `yarn test`, `pnpm test`, with an optional `--silent`/`-s`. */
const PACKAGE_TEST =
  /^\s*(?:npm\s+(?:test|t|run\s+test|run-script\s+test)|yarn(?:\s+run)?\s+test|pnpm(?:\s+run)?\s+test)(?:\s+(?:--silent|-s))?\s*$/;

export type InvocationResolution =
  | { kind: "runner"; invocation: RunnerInvocation }
  | { kind: "none"; reason: string };

/**
 * Which runner a seam or test command invokes, read in a checkout of base: `npm test` follows
 * the package.json test script; any other command must name the runner itself (`node --test x`,
 * `npx vitest run x`). "none" means the command is judged by its exit code only.
 */
export function resolveInvocation(command: string, cwd: string): InvocationResolution {
  let setup: { script: string | null; dependencies: readonly string[] } | null;
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
  return { kind: "runner", invocation: { runner: detection.adapter.runner, script: detection.script } };
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
  /** Outside the checkout; removed before the run so a dead runner cannot leave an old report. */
  reportPath: string;
  signal?: AbortSignal;
}

/** Runs a pinned runner invocation with its report flags, in `cwd`, and reads the report. */
export async function runWithReport(input: ReportRunInput): Promise<ReportRun> {
  const adapter = RUNNER_ADAPTERS.find((a) => a.runner === input.invocation.runner);
  if (!adapter) throw new Error(`no adapter for runner ${input.invocation.runner}`);
  const request = adapter.command(input.invocation.script, input.reportPath);
  const command = request.kind === "report_file" ? request.command : input.invocation.script;
  await removeStaleReport(input.reportPath);
  const run = await runVerifierCommand({
    command,
    cwd: input.cwd,
    timeoutMs: input.timeoutMs,
    logPath: input.logPath,
    pathPrefix: join(input.cwd, "node_modules", ".bin"),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  if (request.kind !== "report_file") return { run, report: null, command, unsupported: request.reason };
  const report = await readReportFile(adapter, input.reportPath, input.cwd);
  return { run, report, command, unsupported: null };
}

/** The report file next to a log (the log directory is devflow's, outside any checkout). */
export const reportPathFor = (logPath: string): string => `${logPath}.report`;
