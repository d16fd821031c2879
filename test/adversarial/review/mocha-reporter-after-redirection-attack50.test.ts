/**
 * Attack 50g (review of ADR 0086's `own_arguments`): a `--reporter` of mocha's written after a
 * redirection, or quoted, is outside the span searched, so the script is not refused up front.
 * No false verdict: a wasted base run (or three) before the console.
 *
 * Cases: `mocha test > out.txt --reporter dot`, `mocha --require r.js 2>/dev/null --reporter dot`
 * (the shell passes words after a redirection to the command: a redirection can stand anywhere in
 * a simple command) and `mocha "--reporter" dot`. Checked with real mocha 10.8.2: with devflow's
 * `--reporter json --reporter-option output=…` inserted after `mocha`, mocha takes the last
 * `--reporter` (dot) and writes no report.
 *
 * Why: `endOfArguments` (script-rewrite.ts) ends the runner's arguments at the first unquoted `>`
 * or `<`, which is right for `appendArguments` (a path added after the redirection target would be
 * the shell's), but the conflict search needs every word the command gets; and the conflict regex
 * (`(?:^|\s)(?:--reporter|-R)(?=[\s=])`) does not see a quoted flag. Before 4cc3a72 the whole
 * script was searched and these were refused at once; now base's report run gives no report, with
 * pre scripts base runs a second time without them, and only then goes to the console run:
 * up to three whole-suite runs on base instead of one, ending in the same console judging.
 *
 * Suggested fix: for the conflict search, take the span up to the first `&&`, `||`, `;`, `|`, `)`
 * or newline only (skip redirections and their targets rather than stopping at them), and strip
 * quotes from the words before matching.
 *
 * Fixed (stop 46), was `it.fails`: the conflict search runs to the end of mocha's command, past
 * redirections, and a quoted `"--reporter"` counts.
 */
import { describe, expect, it } from "vitest";
import { mochaAdapter } from "../../../src/verify/test-reports/mocha.js";

const kind = (script: string) => mochaAdapter.command(script, "/tmp/report.json").kind;

describe("mocha's own --reporter, looked for in its own arguments", () => {
  it("control: a wrapper's --reporter is not mocha's; mocha's own is refused", () => {
    expect(kind("nyc --reporter=lcov mocha test")).toBe("report_file");
    expect(kind("mocha test && nyc report --reporter=lcov")).toBe("report_file");
    expect(kind("mocha -R spec test")).toBe("unsupported");
  });

  for (const script of [
    "mocha test > out.txt --reporter dot",
    "mocha --require r.js 2>/dev/null --reporter dot",
    'mocha "--reporter" dot test',
  ])
    it(`\`${script}\` is refused up front (mocha would write no report)`, () => {
      // Seen at 4cc3a72: report_file, with devflow's flags inserted after `mocha`.
      expect(kind(script)).toBe("unsupported");
    });
});
