// mocha's spec reporter read from a console (regression's last resort, ADR 0086): passing tests by
// their title, failing ones by the full title mocha's failure details give them.

const PASS = /^\s*[✓✔√]\s+(.+)$/u;
/** The summary mocha ends with: `  4 passing (12ms)`, then `  1 pending`, `  2 failing`. */
const PASSING = /^ {2}\d+ passing \(/;
const PENDING_COUNT = /^ {2}\d+ pending\s*$/;
const FAILING = /^ {2}\d+ failing\s*$/;
/** A failure's details: `  1) suite`, then deeper lines down to the title, which ends in `:`. */
const DETAIL = /^ {2}\d+\) (.+)$/;

/**
 * Records mocha's spec output and returns true, or returns false when the output does not end like
 * mocha's. A passing test is named by its last title (the listing's ✓ lines; tests sharing one are
 * counted, `sharedNamePasses`); a failing one by its full title from the details after mocha's last
 * summary, which no listing line can fake or rename. Review, stop 46 (attack 50):
 * - a fix of the seam's `works` and a break of another `works` kept the count of passing `works`:
 *   the break is now a failure by its full title that base did not have;
 * - a `  0 failing` line a module printed hid every numbered failure after it: the details read are
 *   the ones after the last summary;
 * - a test that printed `  1) …` in the listing added a failing test: listing lines are not read
 *   for failures.
 */
export function parseMochaSpec(
  lines: readonly string[],
  record: (name: string, outcome: "pass" | "fail") => void,
): boolean {
  const summary = lines.findLastIndex((line) => PASSING.test(line));
  if (summary < 0) return false;
  for (const line of lines.slice(0, summary)) {
    const pass = PASS.exec(line);
    if (pass) record(withoutDuration(pass[1] ?? ""), "pass");
  }
  let at = summary + 1;
  if (PENDING_COUNT.test(lines[at] ?? "")) at += 1;
  if (!FAILING.test(lines[at] ?? "")) return true;
  for (let i = at + 1; i < lines.length; i++) {
    const first = DETAIL.exec(lines[i] ?? "")?.[1];
    if (first === undefined) continue;
    const path = [first.trim()];
    while (!(path.at(-1) ?? "").endsWith(":") && i + 1 < lines.length && (lines[i + 1] ?? "").trim() !== "")
      path.push((lines[++i] ?? "").trim());
    record(path.join(" > ").replace(/:$/, ""), "fail");
  }
  return true;
}

/** mocha adds `(12ms)` to a slow test's line: not part of its name. */
const withoutDuration = (title: string) => title.replace(/\s+\(\d+(?:\.\d+)?\s*m?s\)\s*$/, "");
