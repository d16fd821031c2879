import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runGit } from "./git.js";

export interface RepoMapOptions {
  /** How many tracked paths to list before summarising the rest. */
  maxFiles?: number;
}

const MAX_SCRIPT_CHARS = 200;
const MAX_MAKE_TARGETS = 60;
const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];

/**
 * A compact, bounded text map of the repository for prompts: the tracked files, and how the
 * project is built and tested (package.json scripts, Makefile targets) when that is declared.
 */
export async function repoMap(worktree: string, { maxFiles = 400 }: RepoMapOptions = {}): Promise<string> {
  const files = (await runGit(worktree, ["ls-files", "-z"])).split("\0").filter((file) => file !== "");
  const shown = files.slice(0, Math.max(0, maxFiles));
  const sections = [[`Tracked files (${files.length}):`, ...shown]];
  if (files.length > shown.length) sections[0]?.push(`… ${files.length - shown.length} more files`);

  const scripts = await packageScripts(worktree);
  if (scripts.length > 0) sections.push(["package.json scripts:", ...scripts]);

  const targets = await makeTargets(worktree);
  if (targets) sections.push([`${targets.file} targets: ${targets.names.join(", ")}`]);

  return `${sections.map((lines) => lines.join("\n")).join("\n\n")}\n`;
}

async function packageScripts(worktree: string): Promise<string[]> {
  const text = await readFile(join(worktree, "package.json"), "utf8").catch(() => undefined);
  if (text === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return ["  (package.json is not valid JSON)"];
  }
  if (!isRecord(parsed) || !isRecord(parsed.scripts)) return [];
  return Object.entries(parsed.scripts)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([name, command]) => `  ${name}: ${truncate(command, MAX_SCRIPT_CHARS)}`);
}

async function makeTargets(worktree: string): Promise<{ file: string; names: string[] } | undefined> {
  for (const file of MAKEFILES) {
    const text = await readFile(join(worktree, file), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const names = new Set<string>();
    for (const line of text.split("\n")) {
      // A rule line: "target [target...]: deps", but not a variable (":=", "::=") or a recipe.
      const match = /^([^\s:#=%][^:#=%]*?)\s*::?(?![=])/.exec(line);
      if (!match?.[1]) continue;
      for (const name of match[1].split(/\s+/)) {
        if (name !== "" && !name.startsWith(".") && !name.includes("$")) names.add(name);
      }
    }
    const list = [...names];
    if (list.length > MAX_MAKE_TARGETS) {
      return {
        file,
        names: [...list.slice(0, MAX_MAKE_TARGETS), `… ${list.length - MAX_MAKE_TARGETS} more`],
      };
    }
    return list.length > 0 ? { file, names: list } : undefined;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
