import { join } from "node:path";
import { checkoutEndText, type FinishedCheckout } from "../artifacts/checkout-end.js";
import type { IterateResult } from "../lanes/outcome.js";
import { caveatLines, passedVerifiers } from "../verify/index.js";
import { DEFAULT_LINE_WIDTH, wrapText } from "./bounded-line.js";
import { type Palette, palette } from "./colour.js";
import type { TakeResult } from "./take-result.js";
import { takeResultLines } from "./take-result.js";

/** What the CLI did after the run: what became of the coder's checkout, how to take the result. */
export interface RunEnding {
  checkout: FinishedCheckout;
  takeResult: TakeResult | null;
}

/** How the summary is drawn: colours (none by default) and the widest line. */
export interface SummaryStyle {
  colours?: Palette;
  width?: number;
}

const KEY_WIDTH = 10;

/** What to do about a run that ended with questions (exit 3): the README's "Honest stops". */
export const NEXT_AFTER_QUESTIONS =
  'answer them in the request of a new run (devflow iterate "<request, with the answers>"), or run it on a terminal without --json, --no-input or --yes, where devflow asks them and goes on';
const INDENT = " ".repeat(KEY_WIDTH);

/**
 * The closing summary a person reads: verdict, branch, where the evidence is, what it cost, and,
 * when a gate decided the run, what it checked and what it did not (its caveats). Long values
 * (a gate's reason can be hundreds of characters) are wrapped to the width and, past a few lines,
 * point at the file that has all of it.
 */
export function renderSummary(r: IterateResult, style: SummaryStyle = {}, ending?: RunEnding): string {
  const c = style.colours ?? palette(false);
  const width = style.width ?? DEFAULT_LINE_WIDTH;
  const t = r.terminal;
  const usage = r.usage.total;
  const runRecord = join(r.artifactDir, "iterator_run.json");
  const rows: [string, string, string | null][] = [
    ["verdict", t.verdict, null],
    ["reason", t.reason, runRecord],
    ["branch", t.branch ? `${t.branch}${t.commit ? ` @ ${t.commit.slice(0, 10)}` : ""}` : r.branch, null],
    ["worktree", ending ? checkoutEndText(r.worktree, ending.checkout) : r.worktree, null],
    ["artifacts", r.artifactDir, null],
    ["attempts", String(r.attempts), null],
    [
      "tokens",
      `${usage.total_tokens} in ${usage.calls} call(s), $${usage.cost_usd.toFixed(4)}${coderPart(r)}`,
      null,
    ],
  ];
  if (t.gate) rows.splice(2, 0, ["checked", passedVerifiers(t.gate).join(", ") || "nothing passed", null]);
  const lines = rows.flatMap(([k, v, wholeAt]) => {
    const [first = "", ...rest] = wrapText(v, width, INDENT, wholeAt);
    const value = k === "verdict" ? verdictColour(c, v)(first) : first;
    return [`${c.bold(k.padEnd(KEY_WIDTH))}${value}`, ...rest.map((l) => `${INDENT}${l}`)];
  });
  const list = (items: string[], wholeAt: string) =>
    items.flatMap((item) =>
      wrapText(item, width, "    ", wholeAt).map((l, i) => `${i ? "    " : "  - "}${l}`),
    );
  const caveats = t.gate ? caveatLines(t.gate) : [];
  if (caveats.length) lines.push(c.bold("not checked"), ...list(caveats, runRecord));
  if (t.questions.length) lines.push(c.bold("questions"), ...list(t.questions, runRecord));
  // The task's verdict is final: its questions are answered in the next run, not in this task.
  if (t.verdict === "needs_more_context")
    lines.push(
      ...wrapText(NEXT_AFTER_QUESTIONS, width, INDENT, null).map(
        (l, i) => `${i ? INDENT : c.bold("next".padEnd(KEY_WIDTH))}${l}`,
      ),
    );
  if (ending?.takeResult) lines.push(...takeResultLines(ending.takeResult));
  return `${lines.join("\n")}\n`;
}

function verdictColour(c: Palette, verdict: string): (s: string) => string {
  if (verdict === "completed") return c.green;
  if (verdict === "blocked" || verdict === "needs_more_context") return c.yellow;
  return c.red;
}

/** The coder's own reported spend, when its backend reports one (it is included in the total). */
function coderPart(r: IterateResult): string {
  const coder = r.usage.by_role.coder;
  return coder ? ` (coder: ${coder.total_tokens} tokens, $${coder.cost_usd.toFixed(4)})` : "";
}
