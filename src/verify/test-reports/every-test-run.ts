import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import type { RunnerAdapter } from "./runner-adapter.js";
import { appendArguments, insertAfter, withoutOwn } from "./script-rewrite.js";

/**
 * `command` with the runner's arguments that undo a stop at the first failure (ADR 0083), or
 * `command` itself when the runner has none, the installed runner is older than the arguments (or
 * not found in `cwd/node_modules`), or the script cannot take them. Unchanged is the project's own
 * behaviour: a stop stays a stop.
 */
export function withEveryTestRun(adapter: RunnerAdapter, command: string, cwd: string): string {
  const every = adapter.runEveryTest;
  if (!every) return command;
  if (every.since && !installedAtLeast(cwd, every.since.package, every.since.version)) return command;
  // Unless the runner is invoked exactly once, nothing is taken out, and nothing is placed below.
  const own = every.replaces
    ? withoutOwn(command, adapter.invocation, every.replaces, adapter.runner)
    : command;
  const placed =
    every.placement === "after_invocation"
      ? insertAfter(own, adapter.invocation, every.args.join(" "), adapter.runner)
      : appendArguments(own, adapter.invocation, every.args, adapter.runner);
  return placed.ok ? placed.command : command;
}

/**
 * Whether `cwd/node_modules/<name>` holds version `min` or later: in devflow's checkouts the user's
 * installed dependencies, linked in. A version an attempt changed there would only drop the
 * arguments from its own run, whose stop then leaves base's green tests missing (fails closed).
 */
function installedAtLeast(cwd: string, name: string, min: string): boolean {
  let version: unknown;
  try {
    version = JSON.parse(readFileSync(join(cwd, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return false;
  }
  return typeof version === "string" && semver.valid(version) !== null && semver.gte(version, min);
}
