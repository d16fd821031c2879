/** A Markdown bullet list, or `empty` when there are no items. */
export const bulletList = (items: readonly string[], empty = "(none)"): string =>
  items.length ? items.map((i) => `- ${i}`).join("\n") : empty;

/** Names a list for a one-line summary without letting a long list swamp it. */
export function nameList(items: readonly string[], max = 10): string {
  if (items.length <= max) return items.join(", ");
  return `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}
