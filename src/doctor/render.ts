import type { CheckStatus, CoderCheck, DoctorReport } from "./types.js";

const MARK: Record<CheckStatus, string> = { ok: "✓", warn: "!", fail: "✗" };

/** Left-aligned columns, two spaces apart; the last column is not padded. */
function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

function credentials(check: CoderCheck): string {
  if (check.auth_configured === null) return "n/a";
  return check.auth_configured ? "configured" : "missing";
}

function coderState(check: CoderCheck): string {
  if (check.ready) return "ready";
  if (check.error !== null) return "unavailable";
  return check.installed ? "needs setup" : "not installed";
}

/** The human report: environment checks, one row per coder backend, `sections`, what to do, the verdict. */
export function renderDoctorReport(report: DoctorReport, sections: readonly string[][] = []): string {
  const { node, git, model_endpoint: endpoint } = report.checks;
  const lines: string[] = [
    `devflow doctor: can \`devflow iterate --coder ${report.defaults.coder} --model ${report.defaults.model}\` run here?`,
    "",
    "Environment",
  ];
  const envRows = columns([
    [MARK[node.status], "node", node.version ?? "-", `needs ≥ ${node.required}`],
    [
      MARK[git.status],
      "git",
      git.version ?? "-",
      `needs ≥ ${git.required}${git.path ? `  (${git.path})` : ""}`,
    ],
    [MARK[endpoint.status], "model endpoint", endpoint.model, endpoint.base_url],
  ]);
  lines.push(...envRows.map((row) => `  ${row}`));
  for (const check of [node, git, endpoint]) {
    if (check.status === "ok" && check.name !== "model_endpoint") continue;
    lines.push(`  ${check.name === "model_endpoint" ? "model endpoint" : check.name}: ${check.detail}`);
    if (check.hint !== null) lines.push(`    → ${check.hint}`);
  }

  lines.push("", `Coder backends (* = the one the defaults use; pick another with --coder <name>)`);
  const coderRows = columns([
    ["", "backend", "installed", "version", "credentials", "state"],
    ...report.coders.map((check) => [
      check.selected ? "*" : " ",
      check.name,
      check.installed ? "yes" : "no",
      check.version ?? "-",
      credentials(check),
      coderState(check),
    ]),
  ]);
  lines.push(...coderRows.map((row) => `  ${row}`));
  const todo = report.coders.filter((check) => check.error !== null || check.hint !== null);
  if (todo.length > 0) lines.push("");
  for (const check of todo) {
    const text = [check.error, check.hint].filter((part) => part !== null).join(" → ");
    lines.push(`  ${check.name}: ${text}`);
  }

  // Sections of other modules (the daemon's, ADR 0054), before the verdict they count in.
  for (const section of sections) lines.push("", ...section);
  lines.push("");
  if (report.ready) {
    lines.push(
      `Ready: devflow iterate can run with coder ${report.defaults.coder} and model ${report.defaults.model}.`,
    );
  } else {
    lines.push("Not ready: the defaults cannot run because");
    lines.push(...report.blocking.map((reason) => `  - ${reason}`));
  }
  return `${lines.join("\n")}\n`;
}
