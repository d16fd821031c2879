import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closingLine, renderMarkdown, renderTable, writeReports } from "./report.js";
import type { PlaygroundReport, ScenarioResult } from "./run-playground.js";

function result(name: string, ok: boolean): ScenarioResult {
  return {
    name,
    kind: "lane",
    group: "iterator_loop",
    description: `${name} description`,
    ok,
    criteriaPassed: ok ? 3 : 2,
    criteriaTotal: 3,
    evaluation: {
      ok,
      notes: ok ? [] : ["stays_in_scope: attempt-001 changed src/cart.js"],
      criteria: { a: "pass", b: "pass", stays_in_scope: ok ? "pass" : "fail" },
    },
    durationMs: 1234,
    tokens: 5000,
    costUsd: 0.01,
    error: null,
    keptAt: ok ? null : "/tmp/devflow-x/cart-summary",
    artifactDir: ok ? null : "/tmp/devflow-x/cart-summary/.devflow/iterate/t",
  };
}

const report: PlaygroundReport = {
  startedAt: "2026-01-01T00:00:00.000Z",
  version: "9.9.9",
  mode: "replay",
  model: "gpt-4.1-mini",
  coder: "scripted (scenarios/coders)",
  concurrency: 2,
  durationMs: 5000,
  passed: 1,
  failed: 1,
  results: [result("scoped_fix_succeeds_first_pass", true), result("iterate_quick_change", false)],
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("playground report", () => {
  it("closes with exactly `N passed, N failed` for CI", () => {
    expect(closingLine(report)).toBe("1 passed, 1 failed");
  });

  it("tables scenario, criteria, verdict, time and tokens, then the failed criteria", () => {
    const table = renderTable(report);
    const lines = table.split("\n");
    expect(lines[0]).toMatch(/^scenario\s+criteria\s+verdict\s+time\s+tokens$/);
    expect(lines[1]).toMatch(/^scoped_fix_succeeds_first_pass\s+3\/3\s+pass\s+1\.2s\s+5000$/);
    expect(lines[2]).toMatch(/^iterate_quick_change\s+2\/3\s+FAIL/);
    expect(table).toContain("  - stays_in_scope: attempt-001 changed src/cart.js");
    expect(table).toContain("run kept at /tmp/devflow-x/cart-summary");
  });

  it("writes report.json (the whole report) and report.md (table and per-scenario criteria)", () => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-report-"));
    dirs.push(dir);
    const paths = writeReports(report, join(dir, "nested"));
    expect(JSON.parse(readFileSync(paths.json, "utf8"))).toEqual(report);
    const md = readFileSync(paths.markdown, "utf8");
    expect(md).toBe(renderMarkdown(report));
    expect(md).toContain("| iterate_quick_change | iterator_loop | 2/3 | **fail** | 1.2s | 5000 |");
    expect(md).toContain("- ✗ stays_in_scope");
    expect(md).toContain("**1 passed, 1 failed**");
  });

  // Issue 11: report.md listed every check as a bare `✓ name` / `✗ name`, with the evidence in a
  // separate notes list, no artifact path and no devflow version. Fixed in report.ts: each failed
  // check carries its own evidence (expected/actual), passed ones fold into one line, and the
  // run's paths and the version are shown.
  it("playground report without evidence, paths or version: each failed check shows its evidence", () => {
    const md = renderMarkdown(report);
    expect(md).toContain("devflow 9.9.9 · replay · model gpt-4.1-mini");
    expect(md).toContain("### iterate_quick_change: **fail** (2/3)");
    expect(md).toContain("- ✗ stays_in_scope: attempt-001 changed src/cart.js");
    expect(md).toContain("Passed: a, b.");
    expect(md).not.toMatch(/^- ✓ /m);
    expect(md).toContain("- artifacts: `/tmp/devflow-x/cart-summary/.devflow/iterate/t`");
    const table = renderTable(report);
    expect(table).toContain("  artifacts: /tmp/devflow-x/cart-summary/.devflow/iterate/t");
    const silent = result("no_note", false);
    silent.evaluation = {
      ok: false,
      notes: ["the evaluator crashed: boom"],
      criteria: { seam_green: "fail" },
    };
    expect(renderTable({ ...report, results: [silent] })).toContain(
      "  - seam_green: failed (no note)\n  - the evaluator crashed: boom",
    );
  });
});
