import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * What a verification run gives the package manager as `npm_config_node_options`, so devflow's
 * preloads (`nodeOptions`: the assert freeze and the assertion ledger, ADR 0040, 0048) reach the
 * scripts it runs. npm (and pnpm, which reads the same setting) does not add a configured
 * `node-options` to NODE_OPTIONS, it replaces NODE_OPTIONS with it: an unchanged
 * `node-options=--max-old-space-size=4096` in the project's `.npmrc` dropped devflow's preloads from
 * every script npm ran, and an attempt that neutered node:assert from program code passed with a test
 * broken (review, stop 48, attack 54d). A setting in the environment comes before the project's
 * and the user's `.npmrc`, so the value given is the one npm would have used (the project's, else
 * the user's) followed by devflow's preloads.
 */
export function packageManagerNodeOptions(cwd: string, nodeOptions: string): string {
  const configured =
    npmrcNodeOptions(join(cwd, ".npmrc")) ??
    npmrcNodeOptions(process.env.npm_config_userconfig ?? join(homedir(), ".npmrc"));
  return configured ? `${configured} ${nodeOptions}` : nodeOptions;
}

/** The last `node-options` an ini file sets (quotes taken off), or null. */
function npmrcNodeOptions(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  let value: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*node[-_]options\s*=\s*(.*?)\s*$/.exec(line);
    if (match) value = unquoted(match[1] ?? "");
  }
  return value === "" ? null : value;
}

function unquoted(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return String(JSON.parse(value));
    } catch {
      return value.slice(1, -1);
    }
  }
  return value.length >= 2 && value.startsWith("'") && value.endsWith("'") ? value.slice(1, -1) : value;
}
