import { realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { npmConfigValue } from "./npmrc.js";
import type { NpmScript } from "./test-reports/runner-adapter.js";
import { shellQuote } from "./test-reports/script-rewrite.js";

// npm's pre scripts (`pretest`, `pre<name>`) as devflow runs them before a pinned runner (ADR 0085):
// which commands npm runs them for, with what environment, and when npm runs none.

/** A command npm itself runs (`npm test`): npm runs a script's `pre` script first. */
export const NPM_COMMAND = /^\s*npm\s/;

/**
 * `command` (the pinned script, with whatever devflow added) preceded by the runner invocation's
 * pinned pre scripts (`RunnerInvocation.preScripts`), each in a shell of its own so its comments
 * and separators stay its own; the runner runs only when they succeed, as under npm. Each gets the
 * variables npm gives a script that scripts use to call npm again (`$npm_execpath run build`,
 * review, stop 46). The command itself when there are none.
 */
export function withPreScripts(preScripts: readonly NpmScript[] | undefined, command: string): string {
  const pre = preScripts ?? [];
  if (pre.length === 0) return command;
  const npm = npmEnvironment();
  const run = ({ name, script }: NpmScript) =>
    [
      ...Object.entries({ ...npm, npm_lifecycle_event: name }).map(([k, v]) => `${k}=${shellQuote(v)}`),
      "sh",
      "-c",
      shellQuote(script),
    ].join(" ");
  return [...pre.map(run), command].join(" && ");
}

/**
 * The environment the package manager gives the pinned test script, for a run in `cwd`: the
 * invocation's path-free part (`npmEnv`, from base's package.json) with what npm adds for the
 * checkout the script runs in (`npm_package_json`, `INIT_CWD`) and npm's own paths. Empty for an
 * invocation that is not a package command's.
 */
export function npmScriptEnv(
  invocation: { npmEnv?: Readonly<Record<string, string>> | undefined },
  cwd: string,
): Record<string, string> {
  if (!invocation.npmEnv) return {};
  return {
    ...invocation.npmEnv,
    ...npmEnvironment(),
    NODE: process.execPath,
    INIT_CWD: cwd,
    npm_package_json: join(cwd, "package.json"),
  };
}

/**
 * What npm sets for every script it runs and scripts call npm back with: its own cli
 * (`npm_execpath`, found on PATH; left out when there is none) and node.
 */
function npmEnvironment(): Record<string, string> {
  const env: Record<string, string> = { npm_node_execpath: process.execPath };
  const cli = npmCli();
  if (cli) env.npm_execpath = cli;
  return env;
}

let npmCliFound: string | null | undefined;

/** npm's cli script (what `npm` on PATH resolves to), looked up once. */
function npmCli(): string | null {
  if (npmCliFound !== undefined) return npmCliFound;
  npmCliFound = null;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    try {
      npmCliFound = realpathSync(join(dir, "npm"));
      break;
    } catch {
      // Not in this folder of PATH.
    }
  }
  return npmCliFound;
}

/**
 * Whether npm's config for `cwd` sets `ignore-scripts` (the project's `.npmrc`, else the user's, as
 * npm reads them): npm then runs no pre scripts.
 */
export function npmIgnoresScripts(cwd: string): boolean {
  return npmConfigValue(cwd, "ignore-scripts") === "true";
}
