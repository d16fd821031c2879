import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PlaygroundReport, ScenarioResult } from "./run-playground.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
/** Longest evidence text per failed check in the reports; report.json keeps every note whole. */
const MAX_EVIDENCE_CHARS = 600;

const bounded = (text: string) =>
  text.length > MAX_EVIDENCE_CHARS
    ? `${text.slice(0, MAX_EVIDENCE_CHARS - 1)}… (all of it: report.json)`
    : text;

/** A failed criterion with its evidence: the grader notes that name it (`criterion: is X, expected Y`). */
export interface FailedCheck {
  criterion: string;
  evidence: string[];
}

/**
 * Each failed criterion of a scenario with the notes that explain it, and the notes that belong to
 * no failed criterion (a crashed evaluator, context from passing checks).
 */
export function failedChecks(result: ScenarioResult): { failed: FailedCheck[]; other: string[] } {
  const failedNames = Object.entries(result.evaluation.criteria)
    .filter(([, v]) => v === "fail")
    .map(([name]) => name);
  const used = new Set<string>();
  const failed = failedNames.map((criterion) => {
    const evidence = result.evaluation.notes.filter((n) => n.startsWith(`${criterion}: `));
    for (const n of evidence) used.add(n);
    return { criterion, evidence: evidence.map((n) => n.slice(criterion.length + 2)) };
  });
  return { failed, other: result.evaluation.notes.filter((n) => !used.has(n)) };
}

/** Where a scenario's run can be inspected: the kept repo and its task's artifacts. */
function pathLines(r: ScenarioResult): string[] {
  return [
    ...(r.artifactDir ? [`artifacts: ${r.artifactDir}`] : []),
    ...(r.keptAt ? [`run kept at ${r.keptAt}`] : []),
  ];
}

/** `devflow 0.1.0 · replay · model gpt-4.1-mini · coder …`: which devflow and setup produced a report. */
export function provenanceLine(report: PlaygroundReport): string {
  return `devflow ${report.version ?? "unknown"} · ${report.mode} · model ${report.model} · coder ${report.coder}`;
}

/** The closing line CI reads: exactly `N passed, N failed`. */
export function closingLine(report: PlaygroundReport): string {
  return `${report.passed} passed, ${report.failed} failed`;
}

/** One line per finished scenario, as it finishes (progress on stderr). */
export function progressLine(result: ScenarioResult): string {
  const mark = result.ok ? "✓" : "✗";
  return `${mark} ${result.name} ${result.criteriaPassed}/${result.criteriaTotal} ${seconds(result.durationMs)}\n`;
}

/** The results table: scenario, criteria passed, verdict, time, tokens; failed criteria listed below. */
export function renderTable(report: PlaygroundReport): string {
  const rows = report.results.map((r) => [
    r.name,
    `${r.criteriaPassed}/${r.criteriaTotal}`,
    r.ok ? "pass" : "FAIL",
    seconds(r.durationMs),
    String(r.tokens),
  ]);
  const header = ["scenario", "criteria", "verdict", "time", "tokens"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  const failures = report.results
    .filter((r) => !r.ok)
    .map((r) => {
      const { failed, other } = failedChecks(r);
      const evidence = failed.flatMap((f) =>
        f.evidence.length
          ? f.evidence.map((e) => `  - ${f.criterion}: ${bounded(e)}`)
          : [`  - ${f.criterion}: failed (no note)`],
      );
      const lines = [
        ...evidence,
        ...other.map((n) => `  - ${bounded(n)}`),
        ...pathLines(r).map((l) => `  ${l}`),
      ];
      return `\n${r.name}:\n${lines.join("\n")}`;
    });
  const tail = failures.length ? `${failures.join("\n")}\n` : "";
  return `${[line(header), ...rows.map(line)].join("\n")}\n${tail}`;
}

export function renderMarkdown(report: PlaygroundReport): string {
  const rows = report.results.map(
    (r) =>
      `| ${r.name} | ${r.group} | ${r.criteriaPassed}/${r.criteriaTotal} | ${r.ok ? "pass" : "**fail**"} | ${seconds(r.durationMs)} | ${r.tokens} |`,
  );
  // Per scenario: the verdict, each failed check with its evidence, the passed ones in one line,
  // where the run is (issue 11: a wall of bare check names helped nobody find why a scenario failed).
  const details = report.results.map((r) => {
    const { failed, other } = failedChecks(r);
    const passed = Object.entries(r.evaluation.criteria)
      .filter(([, v]) => v === "pass")
      .map(([name]) => name);
    const failedLines = failed.map(
      (f) =>
        `- ✗ ${f.criterion}: ${f.evidence.length ? f.evidence.map(bounded).join("; ") : "failed (no note)"}`,
    );
    return [
      `### ${r.name}: ${r.ok ? "pass" : "**fail**"} (${r.criteriaPassed}/${r.criteriaTotal})`,
      "",
      r.description,
      ...(failedLines.length ? ["", "Failed checks:", "", ...failedLines] : []),
      ...(passed.length ? ["", `Passed: ${passed.join(", ")}.`] : []),
      ...(other.length ? ["", "Notes:", "", ...other.map((n) => `- ${bounded(n)}`)] : []),
      ...(pathLines(r).length
        ? ["", ...pathLines(r).map((l) => `- ${l.replace(/(: | at )(.*)$/, "$1`$2`")}`)]
        : []),
    ].join("\n");
  });
  return [
    "# devflow playground report",
    "",
    `${report.startedAt} · ${provenanceLine(report)} · concurrency ${report.concurrency} · ${seconds(report.durationMs)}`,
    "",
    "| scenario | group | criteria | verdict | time | tokens |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    `**${closingLine(report)}**`,
    "",
    "## Scenarios",
    "",
    details.join("\n\n"),
    "",
  ].join("\n");
}

/** Writes report.json and report.md into `dir`; returns their paths. */
export function writeReports(report: PlaygroundReport, dir: string): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, "report.json");
  const markdown = join(dir, "report.md");
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdown, renderMarkdown(report));
  return { json, markdown };
}
