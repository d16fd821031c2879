import { z } from "zod";
import { parseJson } from "./json-text.js";
import { ReportBuilder } from "./report-builder.js";
import type { ParseOptions } from "./runner-adapter.js";
import type { TestReport, TestStatus } from "./test-report.js";

/** The JSON both jest (`--json`) and vitest (`--reporter=json`) write: one entry per file, one per test. */
const JestJson = z.object({
  numTotalTests: z.number(),
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string().optional(),
      message: z.string().optional(),
      assertionResults: z.array(
        z.object({
          ancestorTitles: z.array(z.string()),
          title: z.string(),
          status: z.string(),
        }),
      ),
    }),
  ),
});

const STATUS: Record<string, TestStatus> = {
  passed: "pass",
  failed: "fail",
  pending: "skip",
  skipped: "skip",
  disabled: "skip",
  todo: "todo",
};

export function parseJestFormat(runner: "jest" | "vitest", text: string, { root }: ParseOptions): TestReport {
  const builder = new ReportBuilder(runner, root);
  const json = parseJson(text);
  if (!json.ok) {
    builder.parseError(`${runner} JSON report is not valid JSON (truncated?): ${json.error}`);
    return builder.finish();
  }
  const report = JestJson.safeParse(json.value);
  if (!report.success) {
    builder.parseError(
      `${runner} JSON report has an unexpected shape: ${report.error.issues[0]?.message ?? ""}`,
    );
    return builder.finish();
  }
  for (const file of report.data.testResults) {
    for (const test of file.assertionResults) {
      const status = STATUS[test.status];
      if (status === undefined) builder.parseError(`unknown test status "${test.status}" for ${test.title}`);
      else builder.add(file.name, test.ancestorTitles, test.title, status);
    }
    // A file that failed to load has a message and no tests: its tests are missing, say why.
    if (file.status === "failed" && file.assertionResults.length === 0)
      builder.runError(
        `${builder.relativeFile(file.name)}: ${firstLine(file.message ?? "failed without tests")}`,
      );
  }
  if (report.data.numTotalTests !== builder.testCount)
    builder.parseError(
      `${runner} reported ${report.data.numTotalTests} tests in total but listed ${builder.testCount}`,
    );
  return builder.finish();
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "") ?? text
  );
}
