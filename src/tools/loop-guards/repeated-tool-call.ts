import { createHash } from "node:crypto";
import { REPEATED_TOOL_CALL_DEFAULT_THRESHOLD, REPEATED_TOOL_CALL_THRESHOLDS } from "./thresholds.js";
import type { GuardTrip } from "./types.js";

/** JSON with object keys sorted at every level, so {a,b} and {b,a} are the same call. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** junco's call identity: the tool and the first 12 hex digits of sha1(stable-sorted JSON args). */
export function callKey(name: string, args: unknown): string {
  return `${name}:${createHash("sha1").update(stableJson(args)).digest("hex").slice(0, 12)}`;
}

export function repeatedCallThreshold(name: string): number {
  return REPEATED_TOOL_CALL_THRESHOLDS[name] ?? REPEATED_TOOL_CALL_DEFAULT_THRESHOLD;
}

/** The same tool called with the same arguments N times in a row (N per tool, see thresholds.ts). */
export class RepeatedToolCallGuard {
  private lastKey: string | null = null;
  private streak = 0;

  observe(name: string, args: unknown): GuardTrip | null {
    const key = callKey(name, args);
    this.streak = key === this.lastKey ? this.streak + 1 : 1;
    this.lastKey = key;
    if (this.streak < repeatedCallThreshold(name)) return null;
    return {
      kind: "repeated_tool_call",
      detail: `${name} was called ${this.streak} times in a row with the same arguments (${preview(args)})`,
    };
  }

  reset(): void {
    this.lastKey = null;
    this.streak = 0;
  }
}

function preview(args: unknown): string {
  const json = stableJson(args);
  return json.length <= 120 ? json : `${json.slice(0, 117)}...`;
}
