import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "./paths.js";

const cache = new Map<string, string>();

/** Loads `src/agents/<agent>/<file>` at run time: prompts live beside their contract, never in code strings. */
export function loadPrompt(agent: string, file = "prompt.md"): string {
  const key = `${agent}/${file}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const text = readFileSync(join(PACKAGE_ROOT, "src", "agents", agent, file), "utf8");
  cache.set(key, text);
  return text;
}

/** Replaces `{{name}}` placeholders; an unknown placeholder is an error so a prompt never ships half-filled. */
export function fillPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`prompt placeholder {{${name}}} has no value`);
    return v;
  });
}
