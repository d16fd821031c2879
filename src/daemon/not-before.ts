/**
 * A ticket's `not_before`: a UTC instant written as ISO 8601 with `Z` or `+00:00`
 * (`2026-12-01T18:00Z`, `2026-12-01T18:00:00.000+00:00`). Anything else, including a local time,
 * a date alone, or an impossible date such as February 30, is unparseable: plan-lint refuses it
 * rather than treating it as "eligible now" as junco did (reference §1.1). Returns the normalised
 * ISO string, or null.
 */
const UTC_STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]00:00)$/;

export function parseNotBefore(value: string): string | null {
  const match = UTC_STAMP.exec(value.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const ms = Date.parse(value.trim());
  if (Number.isNaN(ms)) return null;
  const at = new Date(ms);
  // Date.parse rolls "02-30" over to March; a stamp must name the instant it reads as.
  if (
    at.getUTCFullYear() !== y ||
    at.getUTCMonth() + 1 !== mo ||
    at.getUTCDate() !== d ||
    at.getUTCHours() !== h ||
    at.getUTCMinutes() !== mi ||
    (s !== undefined && !Number.isNaN(s) && at.getUTCSeconds() !== s)
  )
    return null;
  return at.toISOString();
}
