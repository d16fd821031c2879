import { jestAdapter } from "./jest.js";
import { mochaAdapter } from "./mocha.js";
import { nodeTestAdapter } from "./node-test.js";
import { pytestAdapter } from "./pytest.js";
import type { PackageTestSetup, RunnerAdapter } from "./runner-adapter.js";
import { tapeAdapter } from "./tape.js";
import { vitestAdapter } from "./vitest.js";

/** Every runner devflow can ask for a report, in no particular order (detection needs exactly one match). */
export const RUNNER_ADAPTERS: readonly RunnerAdapter[] = [
  mochaAdapter,
  jestAdapter,
  vitestAdapter,
  nodeTestAdapter,
  tapeAdapter,
  pytestAdapter,
];

export type RunnerDetection =
  | { kind: "detected"; adapter: RunnerAdapter; script: string }
  | { kind: "none"; reason: string };

/**
 * Which runner the test script invokes. The script decides, not the dependency list (a package
 * may depend on several runners); a runner that is a dependency but not in the script is named in
 * the reason so the user can see why no reporter was requested.
 */
export function detectRunner(setup: PackageTestSetup | null): RunnerDetection {
  if (setup === null || setup.script === null)
    return { kind: "none", reason: "no test script in package.json" };
  const script = setup.script;
  const matches = RUNNER_ADAPTERS.filter((adapter) => adapter.detect(setup));
  const [only] = matches;
  if (matches.length === 1 && only) return { kind: "detected", adapter: only, script };
  if (matches.length > 1)
    return {
      kind: "none",
      reason: `the test script invokes several runners (${matches.map((m) => m.runner).join(", ")}); one report cannot cover them`,
    };
  const known = setup.dependencies.filter((d) => ["mocha", "jest", "vitest", "tape", "ava"].includes(d));
  const hint =
    known.length > 0
      ? ` (dependencies name ${known.join(", ")}, but the script does not run them directly)`
      : "";
  return { kind: "none", reason: `the test script \`${script}\` invokes no known runner${hint}` };
}
