import { isPytestConfigName } from "./pytest-setup.js";
import { isRunnerConfig } from "./test-paths.js";

/** TypeScript's and jsconfig's path maps: vitest's tsconfig-paths plugin and ts-jest's mapper read them. */
const PATH_MAP_CONFIG = /(?:^|\/)(?:tsconfig|jsconfig)(?:\.[\w-]+)*\.json$/;

/**
 * A file that can configure how tests run, as opposed to what they test: a runner, npm or
 * transform config, a package.json (scripts, the runners' keys, `imports`, the module type), a
 * TypeScript path map, pytest's config. The seam is judged with base's copy of each (ADR 0074) and
 * the gate names the ones an attempt changed.
 */
export function configuresTests(file: string): boolean {
  return (
    isRunnerConfig(file) ||
    /(?:^|\/)package\.json$/.test(file) ||
    PATH_MAP_CONFIG.test(file) ||
    isPytestConfigName(file)
  );
}
