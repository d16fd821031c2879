import { PYTEST_PLUGIN_DIR, RUNNER_ADAPTERS, withPluginFolderOnPythonpath } from "./test-reports/index.js";
import { appendArguments } from "./test-reports/script-rewrite.js";

/**
 * devflow's pytest plugin for regression's runs of the whole suite (pytest-plugin/): it undoes
 * every way a run stops at its first failure and keeps the canary's own failure out of pytest's
 * count (ADR 0079, 0083). In its own folder: the folder goes on PYTHONPATH, so nothing else of
 * devflow becomes importable; read-only in a mount namespace.
 */
export const REGRESSION_PLUGIN_DIR = PYTEST_PLUGIN_DIR;
export const REGRESSION_PLUGIN_MODULE = "devflow_regression_count";

const PYTEST = RUNNER_ADAPTERS.find((a) => a.runner === "pytest")?.invocation;

/**
 * `script`, a pytest invocation, loading devflow's plugin (`-p`, after pytest's own arguments), and
 * the environment that lets it import (with the folder appended to a PYTHONPATH the script sets
 * itself, where that can be done); or why it cannot be added. Used by the canary's runs and by the
 * console runs alike.
 */
export function withRegressionPlugin(
  script: string,
): { ok: true; command: string; env: { PYTHONPATH: string } } | { ok: false; reason: string } {
  if (!PYTEST) return { ok: false, reason: "no pytest adapter" };
  const added = appendArguments(script, PYTEST, ["-p", REGRESSION_PLUGIN_MODULE], "pytest");
  return added.ok
    ? {
        ok: true,
        command: withPluginFolderOnPythonpath(added.command) ?? added.command,
        env: { PYTHONPATH: REGRESSION_PLUGIN_DIR },
      }
    : { ok: false, reason: added.reason };
}
