import { readFile, rm } from "node:fs/promises";
import { unreadableReport } from "./report-builder.js";
import type { RunnerAdapter } from "./runner-adapter.js";
import type { TestReport } from "./test-report.js";

/**
 * Removes a report left by an earlier run, before the run that should write it: a runner that
 * dies before writing must leave no file, or the old report would be read as this run's.
 */
export async function removeStaleReport(reportPath: string): Promise<void> {
  await rm(reportPath, { force: true });
}

/**
 * Reads and parses the report a run was asked to write. A missing or empty file (the runner
 * crashed, was killed, or never got to write it) is an incomplete report, never an empty pass.
 */
export async function readReportFile(
  adapter: RunnerAdapter,
  reportPath: string,
  root: string,
): Promise<TestReport> {
  let text: string;
  try {
    text = await readFile(reportPath, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    return unreadableReport(
      adapter.runner,
      `the ${adapter.runner} report was not written (${code}): ${reportPath}`,
    );
  }
  if (text.trim() === "")
    return unreadableReport(adapter.runner, `the ${adapter.runner} report is empty: ${reportPath}`);
  return adapter.parse(text, { root });
}
