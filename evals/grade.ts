import type { Check, Evaluation } from "./types.js";

/**
 * Folds graded checks into an evaluation. A criterion graded by more than one grader passes only
 * if every grading passed; `ok` needs every criterion to pass. Notes keep the failures first.
 */
export function grade(checks: Check[]): Evaluation {
  const criteria: Evaluation["criteria"] = {};
  const failures: string[] = [];
  const context: string[] = [];
  for (const check of checks) {
    const before = criteria[check.criterion];
    criteria[check.criterion] = before === "fail" || !check.pass ? "fail" : "pass";
    if (!check.pass) failures.push(`${check.criterion}: ${check.note ?? "failed"}`);
    else if (check.note) context.push(`${check.criterion}: ${check.note}`);
  }
  const ok = Object.values(criteria).every((r) => r === "pass") && checks.length > 0;
  if (checks.length === 0) failures.push("no criterion was graded");
  return { ok, notes: [...failures, ...context], criteria };
}

/** A check from a condition, with the note used when it fails. */
export function check(criterion: string, pass: boolean, failNote: string, passNote?: string): Check {
  return pass
    ? { criterion, pass, ...(passNote ? { note: passNote } : {}) }
    : { criterion, pass, note: failNote };
}

/** A condition's note when it is broken; false/null/undefined/"" when it holds. */
export type Problem = string | false | null | undefined;

/** One check from a list of possible problems: it passes when none applies, else names them all. */
export function checkProblems(criterion: string, possible: Problem[]): Check {
  const found = possible.filter((p): p is string => typeof p === "string" && p.length > 0);
  return check(criterion, found.length === 0, found.join("; "));
}

/** `field is <actual>, expected <expected>`, graded only when the scenario states an expectation. */
export function checkExpected<T>(
  criterion: string,
  field: string,
  actual: T,
  expected: T | undefined,
): Check[] {
  if (expected === undefined) return [];
  return [
    check(criterion, actual === expected, `${field} is ${String(actual)}, expected ${String(expected)}`),
  ];
}
