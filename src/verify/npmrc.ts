import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The one reader of npm's ini config for verification: the value npm would use for `key` in a
 * project at `cwd`, the project's `.npmrc` first, else the user's (`npm_config_userconfig`, else
 * `~/.npmrc`); null when neither sets it. `_` and `-` in a key are the same to npm
 * (`node_options` is `node-options`). The last line setting it wins; quotes are taken off.
 */
export function npmConfigValue(cwd: string, key: string): string | null {
  return (
    iniValue(join(cwd, ".npmrc"), key) ??
    iniValue(process.env.npm_config_userconfig ?? join(homedir(), ".npmrc"), key)
  );
}

/** The last value an ini file gives `key` (empty counts as unset), or null. */
function iniValue(path: string, key: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  const name = key.replace(/[-_]/g, "[-_]");
  const line = new RegExp(`^\\s*${name}\\s*=\\s*(.*?)\\s*$`);
  let value: string | null = null;
  for (const row of text.split(/\r?\n/)) {
    const match = line.exec(row);
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
