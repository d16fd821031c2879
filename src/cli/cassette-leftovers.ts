/**
 * The warning after a replay that left cassette answers unused (ADR 0046): the run made fewer model
 * calls than the cassette scripts, so the cassette has drifted from the code, or the run stopped
 * early (blocked, questions, a failure) before reaching them. A warning, not an error: only the
 * playground and the evals referee (ADR 0027), which know a scenario's whole run, fail on it.
 * `part` names whose part of a plan's cassette dir it is (`task T2`): each task replays its own.
 */
export function unusedAnswersWarning(
  cassette: string,
  unused: Partial<Record<string, number>>,
  part?: string,
): string | null {
  const left = Object.entries(unused).filter((e): e is [string, number] => (e[1] ?? 0) > 0);
  if (left.length === 0) return null;
  const total = left.reduce((sum, [, n]) => sum + n, 0);
  const roles = left.map(([role, n]) => `${role} ${n}`).join(", ");
  return `devflow: warning: cassette ${cassette}${part ? ` (${part})` : ""}: ${total} answer(s) not used (${roles}); the run made fewer model calls than the cassette scripts\n`;
}
