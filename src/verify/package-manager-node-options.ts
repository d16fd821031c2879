import { npmConfigValue } from "./npmrc.js";

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
  const configured = npmConfigValue(cwd, "node-options");
  return configured ? `${configured} ${nodeOptions}` : nodeOptions;
}
