/** Typed, `any`-free access to JSON the CLIs print: every field is checked before it is used. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses one JSON object; anything else (plain text, arrays, broken JSON) is `null`, never a throw. */
export function parseJsonObject(text: string): JsonObject | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

export function getString(source: JsonObject | undefined, key: string): string | undefined {
  const value = source?.[key];
  return typeof value === "string" ? value : undefined;
}

export function getNumber(source: JsonObject | undefined, key: string): number | undefined {
  const value = source?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function getBoolean(source: JsonObject | undefined, key: string): boolean | undefined {
  const value = source?.[key];
  return typeof value === "boolean" ? value : undefined;
}

export function getObject(source: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = source?.[key];
  return isJsonObject(value) ? value : undefined;
}

export function getArray(source: JsonObject | undefined, key: string): unknown[] | undefined {
  const value = source?.[key];
  return Array.isArray(value) ? value : undefined;
}

/** The string members of an array field (errors[], permission_denials[] ...). */
export function getStrings(source: JsonObject | undefined, key: string): string[] {
  return (getArray(source, key) ?? []).filter((item): item is string => typeof item === "string");
}
