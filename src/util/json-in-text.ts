/**
 * The JSON object in a model's text answer, tolerating a ```json fence or prose around it: from the
 * first `{` to the last `}`. undefined when there is none or it does not parse. One rule for the
 * structured call (src/models) and the cassette check (src/agents), so a cassette entry passes the
 * check exactly when a run would read it.
 */
export function jsonObjectInText(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start === -1 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}
