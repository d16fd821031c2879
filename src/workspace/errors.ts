/** The text of an unknown thrown value, for embedding git's own complaint in a workspace error. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim();
}
