import type { RunEnd } from "./worker-types.js";

/** What every end that ran no attempt says besides its status, verdict and reason. */
export type RunEndWithoutRunFields = Pick<RunEnd, "status" | "verdict" | "reason"> & Partial<RunEnd>;

/**
 * The one "no attempt ran" RunEnd (a run that threw, a cancel before the run, a read-only ticket, a
 * lane that stopped for answers): no task, branch, commit, attempts or artifacts unless `fields`
 * names them. One builder, so a field added to RunEnd gets its "nothing ran" value in one place.
 */
export function runEndWithoutRun(fields: RunEndWithoutRunFields): RunEnd {
  return {
    taskId: null,
    branch: null,
    commit: null,
    attempts: 0,
    artifactDir: null,
    resumed: false,
    ...fields,
  };
}
