import type { CoderFailureStatus } from "../contract.js";

// Fallback only: structured fields (subtype, exit code, error names) are checked first by each
// backend; these patterns read a CLI's *error text* (never the whole transcript, where a model
// discussing "rate limits" in code would trip them). Patterns from the coder-CLI notes (docs/origins.md#coder-clis).
const RATE_LIMIT =
  /\b429\b|rate[ _-]?limit|usage[ _-]?limit|quota|resource[ _-]?exhausted|too many requests|RateLimitError/i;
const AUTH =
  /\b401\b|\b403\b|unauthori[sz]ed|authenticat(?:ion|e)|invalid[ _-]?(?:x-)?api[ _-]?key|api[ _-]?key (?:is )?(?:missing|not (?:set|found|valid))|missing api[ _-]?key|not logged in|log ?in required|please (?:log|sign) ?in|permission[ _-]denied|forbidden|credentials/i;

/** `rate_limit` or `auth` when the error text says so, else `error`. Rate limits win ("429 ... api key"). */
export function classifyErrorText(text: string): CoderFailureStatus {
  if (RATE_LIMIT.test(text)) return "rate_limit";
  if (AUTH.test(text)) return "auth";
  return "error";
}

/** Maps an HTTP status a CLI reports (claude's api_error_status, opencode's statusCode). */
export function statusFromHttp(code: number | undefined): CoderFailureStatus | null {
  if (code === 429) return "rate_limit";
  if (code === 401 || code === 403) return "auth";
  return null;
}

/** The last `max` characters of a text, for error messages built from output tails. */
export function tail(text: string, max = 800): string {
  const trimmed = text.trim();
  return trimmed.length <= max ? trimmed : `…${trimmed.slice(trimmed.length - max)}`;
}
