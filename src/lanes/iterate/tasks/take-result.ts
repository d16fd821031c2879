/**
 * The commands that take a completed task's result into the user's branch, in one place: the
 * closing summary, `--json`'s `take_result` and `devflow show` print these. `HEAD...branch`
 * (three dots) is exactly what the merge would bring: the branch's change since it left the
 * user's history, whatever the user committed meanwhile.
 */
export interface TakeResult {
  merge: string;
  review: string;
}

/** The commands for a task that completed with a commit on `branch`; null for any other verdict. */
export function takeResultCommands(terminal: {
  verdict: string;
  commit: string | null;
  branch: string | null;
}): TakeResult | null {
  if (terminal.verdict !== "completed" || !terminal.commit || !terminal.branch) return null;
  return { merge: `git merge ${terminal.branch}`, review: `git diff HEAD...${terminal.branch}` };
}

/** The two lines the human summary ends with after `completed`. */
export const takeResultLines = (take: TakeResult): string[] => [
  `to take the result: ${take.merge}`,
  `to review it first: ${take.review}`,
];
