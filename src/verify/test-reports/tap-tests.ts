import { Parser } from "tap-parser";
import { ReportBuilder } from "./report-builder.js";
import type { ParseOptions } from "./runner-adapter.js";
import type { RunnerName, TestReport, TestStatus } from "./test-report.js";

/**
 * Reads tape-style TAP: each `# name` comment starts a test and the assertions after it decide its
 * status (any failing one fails it; a failing TODO assertion, or all TODO, → todo); `# SKIP name` is
 * a skipped test. A comment with no assertions of its own is a parent of subtests, not a test. The
 * TAP carries neither file nor nesting, so tests are identified by title and told apart by order (a
 * second "works" is "works"#2), and the report says so in `notes`.
 */
export function parseTapComments(runner: RunnerName, text: string, { root }: ParseOptions): TestReport {
  const builder = new ReportBuilder(runner, root);
  builder.note(
    "TAP from this runner names neither file nor suite: tests with the same title are told apart by their order",
  );
  if (text.trim() === "") {
    builder.parseError("no TAP output at all");
    return builder.finish();
  }
  let current: { title: string; outcomes: Outcome[] } | null = null;
  let planned = false;
  const flush = () => {
    if (current && current.outcomes.length > 0)
      builder.add("", [], current.title, statusOf(current.outcomes));
    current = null;
  };
  const parser = new Parser();
  parser.on("comment", (raw: string) => {
    if (planned) return;
    const comment = raw.replace(/^#\s?/, "").trim();
    flush();
    const skipped = /^SKIP\s+(.*)$/.exec(comment);
    if (skipped) builder.add("", [], skipped[1] ?? "", "skip");
    else current = { title: comment, outcomes: [] };
  });
  parser.on("assert", (result: { ok: boolean; todo: string | boolean; skip: string | boolean }) => {
    current ??= { title: "(assertions outside any test)", outcomes: [] };
    current.outcomes.push(
      result.todo ? (result.ok ? "todo" : "todo_not_ok") : result.skip ? "skip" : result.ok ? "ok" : "not_ok",
    );
  });
  parser.on("plan", () => {
    flush();
    planned = true;
  });
  parser.on("bailout", (reason: string) => builder.parseError(`the run bailed out: ${reason}`));
  let final: { count: number; plan: { end: number | null } } | null = null;
  parser.on("complete", (results: { count: number; plan: { end: number | null } }) => {
    final = results;
  });
  parser.end(text);
  flush();
  const done = final as { count: number; plan: { end: number | null } } | null;
  if (!planned || done === null || done.plan.end === null)
    builder.parseError("TAP has no plan line (1..N): the run was cut off or the output truncated");
  else if (done.count !== done.plan.end)
    builder.parseError(`TAP planned ${done.plan.end} assertions but reported ${done.count}`);
  return builder.finish();
}

/** One assertion: `todo_not_ok` is `not ok … # TODO`, an expected failure. */
type Outcome = "ok" | "not_ok" | "todo" | "todo_not_ok" | "skip";

function statusOf(outcomes: readonly Outcome[]): TestStatus {
  if (outcomes.includes("not_ok")) return "fail";
  // A failing assertion marked TODO is an expected failure (tape's `{ todo: true }`): the test is
  // not green, whatever passes beside it (review attack44b: a broken check hid as a pass).
  if (outcomes.includes("todo_not_ok")) return "todo";
  if (outcomes.every((o) => o === "todo")) return "todo";
  if (outcomes.every((o) => o === "skip")) return "skip";
  return "pass";
}
