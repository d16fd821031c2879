import { fileURLToPath } from "node:url";

/**
 * devflow's pytest plugin for regression's runs of the whole suite (pytest-plugin/): it undoes
 * every way a run stops at its first failure and keeps the canary's own failure out of pytest's
 * count (ADR 0079, 0083). In its own folder: the folder goes on PYTHONPATH, so nothing else of
 * devflow becomes importable; read-only in a mount namespace.
 */
export const REGRESSION_PLUGIN_DIR = fileURLToPath(new URL("./pytest-plugin/", import.meta.url));
export const REGRESSION_PLUGIN_MODULE = "devflow_regression_count";
