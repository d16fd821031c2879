/**
 * How many earlier turns an agent sees. A long conversation must not grow every prompt without
 * bound; the most recent turns carry the context a new message refers to.
 */
export const MAX_PRIOR_TURNS = 20;

/** Prior turns as prompt text, one `role: content` paragraph each ("" when there are none). */
export function renderTurns(turns: readonly { role: string; content: string }[]): string {
  return turns
    .slice(-MAX_PRIOR_TURNS)
    .map((t) => `${t.role}: ${t.content}`)
    .join("\n");
}
