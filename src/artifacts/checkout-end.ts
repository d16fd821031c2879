/**
 * What became of a finished task's coder checkout, and how the summaries say it (the CLI's and the
 * chat's), in one place. `kept`: still the task's (--keep-worktree, no verdict, another run holds
 * the task); `kept_idle`: moved aside at `idlePath` for the next task's coder to start from
 * (ADR 0050); `removed`: deleted. Before this, a checkout kept idle was reported as "removed".
 */
export type FinishedCheckout = { end: "kept" } | { end: "kept_idle"; idlePath: string } | { end: "removed" };

/** The value of the summary's `worktree` line. */
export function checkoutEndText(worktree: string, checkout: FinishedCheckout): string {
  switch (checkout.end) {
    case "kept":
      return worktree;
    case "kept_idle":
      return `coder checkout kept idle for the next task (${checkout.idlePath}; --keep-worktree keeps it as the task's)`;
    case "removed":
      return "removed (--keep-worktree keeps it)";
  }
}

/** The `--json` fields: `worktree_kept` (as before) and `worktree_end` (which of the three). */
export const checkoutEndFields = (checkout: FinishedCheckout) => ({
  worktree_kept: checkout.end === "kept",
  worktree_end: checkout.end,
  ...(checkout.end === "kept_idle" ? { worktree_idle_path: checkout.idlePath } : {}),
});
