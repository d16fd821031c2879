import type { IdeaPlan, IdeaTask } from "../../artifacts/schemas/index.js";

/**
 * A re-plan's edit may revise only the tasks still to do (issue 13, ADR 0060 §5): the landed tasks
 * are commits on the integration branch, so the edited plan must list them first, unchanged (every
 * field, compared as data, not as text: key order and spacing in the editor do not matter). Returns
 * the first problem in one line (`tasks.0: T1 landed …`), or null when every landed task is kept.
 * The CLI's edit prompt and the compose lane both check with this one rule.
 */
export function landedTasksProblem(landed: readonly IdeaTask[], plan: IdeaPlan): string | null {
  for (const [i, task] of landed.entries()) {
    const edited = plan.tasks[i];
    if (!edited)
      return `tasks.${i}: ${task.id} landed and cannot be removed (keep the landed tasks ${ids(landed)} first, unchanged)`;
    if (canonical(edited) !== canonical(task))
      return `tasks.${i}: ${task.id} landed and cannot be changed (keep the landed tasks ${ids(landed)} first, unchanged)`;
  }
  return null;
}

const ids = (tasks: readonly IdeaTask[]): string => tasks.map((t) => t.id).join(", ");

/** JSON with object keys sorted, so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
