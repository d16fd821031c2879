/** Quotes one word for a POSIX shell, only when it needs it. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A command line a user can paste into a POSIX shell: each word quoted as it needs. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(" ");
}

/**
 * The command that continues a plan (ADR 0060): printed by `devflow plan` when stopped and by a
 * piped chat that did not ask to run one. The repository by path, so it works from any directory.
 */
export function planResumeCommandLine(planId: string, repoRoot: string): string {
  return commandLine(["devflow", "plan", "--resume", planId, "--yes", "-r", repoRoot]);
}
