import type { IterateResult } from "../lanes/outcome.js";
import { caveatLines, passedVerifiers } from "../verify/index.js";
import type { TakeResult } from "./take-result.js";
import { takeResultLines } from "./take-result.js";

/** What the CLI did after the run: whether it kept the coder's checkout, how to take the result. */
export interface RunEnding {
  worktreeKept: boolean;
  takeResult: TakeResult | null;
}

/**
 * The closing summary a person reads: verdict, branch, where the evidence is, what it cost, and,
 * when a gate decided the run, what it checked and what it did not (its caveats).
 */
export function renderSummary(r: IterateResult, ending?: RunEnding): string {
  const t = r.terminal;
  const usage = r.usage.total;
  const rows: [string, string][] = [
    ["verdict", t.verdict],
    ["reason", t.reason],
    ["branch", t.branch ? `${t.branch}${t.commit ? ` @ ${t.commit.slice(0, 10)}` : ""}` : r.branch],
    ["worktree", ending?.worktreeKept === false ? "removed (--keep-worktree keeps it)" : r.worktree],
    ["artifacts", r.artifactDir],
    ["attempts", String(r.attempts)],
    [
      "tokens",
      `${usage.total_tokens} in ${usage.calls} call(s), $${usage.cost_usd.toFixed(4)}${coderPart(r)}`,
    ],
  ];
  if (t.gate) rows.splice(2, 0, ["checked", passedVerifiers(t.gate).join(", ") || "nothing passed"]);
  const lines = rows.map(([k, v]) => `${k.padEnd(10)}${v}`);
  const caveats = t.gate ? caveatLines(t.gate) : [];
  if (caveats.length) lines.push("not checked", ...caveats.map((c) => `  - ${c}`));
  if (t.questions.length) lines.push("questions", ...t.questions.map((q) => `  - ${q}`));
  if (ending?.takeResult) lines.push(...takeResultLines(ending.takeResult));
  return `${lines.join("\n")}\n`;
}

/** The coder's own reported spend, when its backend reports one (it is included in the total). */
function coderPart(r: IterateResult): string {
  const coder = r.usage.by_role.coder;
  return coder ? ` (coder: ${coder.total_tokens} tokens, $${coder.cost_usd.toFixed(4)})` : "";
}
