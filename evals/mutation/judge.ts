/**
 * How one mutant is judged (ADR 0027, amended at stop 22): the scenarios named as its catchers run
 * first; only when none of them went red does the rest of the suite run. The verdict ("caught" when
 * any scenario of the suite is red) is the same as running the whole suite at once, because replay
 * is deterministic; the hint only decides how much of the suite must run to know it. CI used to run
 * the whole 30-scenario suite per mutant (three times the eval's time).
 */

/** One scenario that went red under the mutant, with the criteria its evaluator failed. */
export interface RedScenario {
  name: string;
  criteria: string[];
}

/** What one run of (part of) the suite gave: its red scenarios and how many ran, or why it gave nothing. */
export type SuiteRun =
  | { kind: "ran"; red: RedScenario[]; total: number }
  | { kind: "no_report"; problem: string };

/** Runs the named scenarios, or every scenario but the named ones (`except`). */
export type RunScenarios = (
  selection: { only: readonly string[] } | { except: readonly string[] },
) => Promise<SuiteRun>;

export type MutantVerdict =
  | { kind: "caught"; red: RedScenario[]; ran: number; phase: "catchers" | "whole suite" }
  | { kind: "not_caught"; ran: number }
  | { kind: "problem"; problem: string };

export async function judgeMutant(
  caughtBy: readonly string[],
  runScenarios: RunScenarios,
  full: boolean,
): Promise<MutantVerdict> {
  if (!full && caughtBy.length > 0) {
    const first = await runScenarios({ only: caughtBy });
    if (first.kind === "no_report") return { kind: "problem", problem: first.problem };
    if (first.red.length > 0) return { kind: "caught", red: first.red, ran: first.total, phase: "catchers" };
    const rest = await runScenarios({ except: caughtBy });
    if (rest.kind === "no_report") return { kind: "problem", problem: rest.problem };
    const ran = first.total + rest.total;
    return rest.red.length > 0
      ? { kind: "caught", red: rest.red, ran, phase: "whole suite" }
      : { kind: "not_caught", ran };
  }
  const all = await runScenarios({ except: [] });
  if (all.kind === "no_report") return { kind: "problem", problem: all.problem };
  return all.red.length > 0
    ? { kind: "caught", red: all.red, ran: all.total, phase: "whole suite" }
    : { kind: "not_caught", ran: all.total };
}
