/**
 * Every failure of the workspace layer. The message always says what is wrong and what the
 * user can do about it, because it is shown to them as-is by the CLI.
 */
export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The text of an unknown thrown value, for embedding git's own complaint in a WorkspaceError. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim();
}
