import { parseTestResults } from "../test-results.js";
import { ReportBuilder } from "./report-builder.js";
import type { ParseOptions } from "./runner-adapter.js";
import type { TestReport } from "./test-report.js";

/**
 * Last resort when no reporter could be requested (unknown runner, a script devflow cannot
 * rewrite): the console-output parser of `test-results.ts`, labelled `stdout_fallback`. Its names
 * are whatever the console shows (often the last title alone, duplicates merged); output in which
 * no test is recognised is an incomplete report, never an empty pass.
 */
export function parseStdoutFallback(output: string, { root }: ParseOptions): TestReport {
  const builder = new ReportBuilder("stdout", root, "stdout_fallback");
  builder.note("parsed from console output: names may be the last title only and same-named tests merge");
  const results = parseTestResults(output);
  if (results === null) {
    builder.parseError("no per-test results recognised in the console output");
    return builder.finish();
  }
  for (const [name, outcome] of results) builder.add("", [], name, outcome);
  return builder.finish();
}
