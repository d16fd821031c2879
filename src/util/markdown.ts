/** A Markdown bullet list, or `empty` when there are no items. */
export const bulletList = (items: readonly string[], empty = "(none)"): string =>
  items.length ? items.map((i) => `- ${i}`).join("\n") : empty;
