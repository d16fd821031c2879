import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PlaygroundReport, ScenarioResult } from "./run-playground.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

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
    .map(
      (r) =>
        `\n${r.name}:\n${r.evaluation.notes.map((n) => `  - ${n}`).join("\n")}${r.keptAt ? `\n  run kept at ${r.keptAt}` : ""}`,
    );
  const tail = failures.length ? `${failures.join("\n")}\n` : "";
  return `${[line(header), ...rows.map(line)].join("\n")}\n${tail}`;
}

export function renderMarkdown(report: PlaygroundReport): string {
  const rows = report.results.map(
    (r) =>
      `| ${r.name} | ${r.group} | ${r.criteriaPassed}/${r.criteriaTotal} | ${r.ok ? "pass" : "**fail**"} | ${seconds(r.durationMs)} | ${r.tokens} |`,
  );
  const details = report.results.map((r) => {
    const criteria = Object.entries(r.evaluation.criteria).map(
      ([name, v]) => `- ${v === "pass" ? "✓" : "✗"} ${name}`,
    );
    const notes = r.evaluation.notes.map((n) => `- ${n}`);
    return [
      `### ${r.name} (${r.ok ? "pass" : "fail"})`,
      "",
      r.description,
      "",
      ...criteria,
      ...(notes.length ? ["", "Notes:", "", ...notes] : []),
      ...(r.keptAt ? ["", `Run kept at \`${r.keptAt}\`.`] : []),
    ].join("\n");
  });
  return [
    "# devflow playground report",
    "",
    `${report.startedAt} · mode ${report.mode} · model ${report.model} · coder ${report.coder} · concurrency ${report.concurrency} · ${seconds(report.durationMs)}`,
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
