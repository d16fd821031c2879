import { readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { installedBinDirs } from "./installed-bin-dirs.js";
import { NPM_COMMAND, npmScriptEnv, withPreScripts } from "./npm-pre-scripts.js";
import { REGRESSION_PLUGIN_MODULE, withRegressionPlugin } from "./regression-plugin.js";
import { PACKAGE_TEST, pinnedBinDir, type RunnerInvocation } from "./report-run.js";
import { runVerifierCommand, type VerifierCommand, type VerifierCommandRun } from "./run-command.js";
import { withEveryTestRun } from "./test-reports/every-test-run.js";
import { RUNNER_ADAPTERS } from "./test-reports/index.js";

// Regression's console runs: the test command judged from its output when no runner report could
// be had (ADR 0084), with the PATH and the every-test arguments a report run gets.

/**
 * Runs a command that regression judges from its console (no runner report could be had): with
 * the PATH npm gives a script, as a report run has it (devflow's `node` first, then the user's
 * installed binaries). Without it a command naming a local binary (`ava`, `jest --bail`) ended
 * "not found" on base and every attempt was rejected (review, stop 44).
 */
export function runOnConsole(cmd: VerifierCommand): Promise<VerifierCommandRun> {
  const binDir = pinnedBinDir([], cmd.logPath);
  return runVerifierCommand({
    ...cmd,
    pathPrefix: [binDir, ...installedBinDirs(cmd.cwd, cmd.mounts)].join(delimiter),
    ...(cmd.mounts ? { alsoExpose: [...(cmd.alsoExpose ?? []), { path: binDir, writable: false }] } : {}),
  });
}

/** A console run's command and what it adds to the environment. */
export interface ConsoleCommand {
  command: string;
  /** Added to the run's environment (the plugin's folder on PYTHONPATH). */
  env: Record<string, string> | null;
}

/**
 * What a console run of a runner devflow knows runs when its report could not be had (the command
 * names its own reporter, or base's report run gave none): the base's pinned script with the
 * runner's every-test arguments, as a report run gets them (ADR 0083), and for pytest devflow's
 * plugin, which undoes the stops no argument reaches (`--sw`, a conftest's own stop). Without them
 * a stop at the first failure held on base and on every attempt (review, stop 45, attacks 47 and
 * 48). `npm test`'s pre scripts run first, as in a report run. Null when nothing changes: the
 * command then runs as the project wrote it.
 */
export function everyTestConsoleCommand(
  invocation: RunnerInvocation,
  command: string,
  cwd: string,
  options: { plugin?: boolean } = {},
): ConsoleCommand | null {
  const adapter = RUNNER_ADAPTERS.find((a) => a.runner === invocation.runner);
  if (!adapter) return null;
  // yarn 1 runs `pretest`/`posttest` too, yarn 2+ and pnpm 7+ do not: which one runs here is not
  // known, and running the script alone could skip a build the tests load (review, stop 45, attack
  // 48), so such a package keeps its command (and any stop it sets).
  if (PACKAGE_TEST.test(command) && !NPM_COMMAND.test(command) && hasTestLifecycle(cwd)) return null;
  // Nor one the package manager runs (ADR 0088): devflow cannot run its script as it would.
  if (invocation.packageManager) return null;
  const every = withEveryTestRun(adapter, invocation.script, cwd);
  if (adapter.runner === "pytest" && options.plugin !== false) {
    const withPlugin = withRegressionPlugin(every);
    if (withPlugin.ok)
      return { command: withPreScripts(invocation.preScripts, withPlugin.command), env: withPlugin.env };
  }
  // The package manager's variables, as the report run has them (npmScriptEnv).
  const npm = npmScriptEnv(invocation, cwd);
  return every === invocation.script
    ? null
    : {
        command: withPreScripts(invocation.preScripts, every),
        env: Object.keys(npm).length > 0 ? npm : null,
      };
}

/** A console run that named devflow's pytest plugin and could not import it (the command sets its own PYTHONPATH). */
export const pluginNotImported = (output: string): boolean =>
  output.includes(REGRESSION_PLUGIN_MODULE) && /No module named|Error importing plugin/.test(output);

/** Whether the package.json in `cwd` has a `pretest` or `posttest` script (unreadable: as if it had). */
function hasTestLifecycle(cwd: string): boolean {
  try {
    const scripts = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"))?.scripts ?? {};
    return typeof scripts !== "object" || "pretest" in scripts || "posttest" in scripts;
  } catch {
    return true;
  }
}
