import { readdirSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Evaluator } from "../evals/types.js";
import type { Scenario, ScenarioGroup } from "./scenario.js";

/** This folder: every `<name>.ts` here except scenario.ts, index.ts and setups.ts is one scenario. */
export const SCENARIOS_DIR = dirname(fileURLToPath(import.meta.url));
/** `.ts` in the sources, `.js` in the compiled build (dist/scenarios, ADR 0042). */
const MODULE_EXT = extname(fileURLToPath(import.meta.url));
const NOT_SCENARIOS = new Set(["index", "scenario", "setups"].map((name) => `${name}${MODULE_EXT}`));

/** A scenario file: the scenario's definition and the evaluator that grades its runs. */
export interface ScenarioModule {
  scenario: Scenario;
  evaluate: Evaluator;
}

/** Reports list scenarios by the order of the design's scenario lists (docs/origins.md#03-scenarios), then by name. */
const GROUP_ORDER: readonly ScenarioGroup[] = [
  "arm",
  "subagent",
  "framing",
  "observation",
  "iterator_loop",
  "coder_attempt",
  "compose",
];

/** The scenario files of a folder (`<name>.ts`, tests and helpers left out). */
export function scenarioFiles(dir = SCENARIOS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(MODULE_EXT) && /^[a-z0-9_]+\.[jt]s$/.test(f) && !NOT_SCENARIOS.has(f))
    .sort();
}

/**
 * Discovers every scenario: each file is imported and must export `scenario` (named after the
 * file) and `evaluate`; a file that does not is an error naming it. There is no list to keep.
 */
export async function loadScenarios(dir = SCENARIOS_DIR): Promise<readonly ScenarioModule[]> {
  const modules = await Promise.all(
    scenarioFiles(dir).map(async (file) =>
      asScenarioModule(file, await import(pathToFileURL(join(dir, file)).href)),
    ),
  );
  const rank = (m: ScenarioModule) => GROUP_ORDER.indexOf(m.scenario.group);
  return modules.sort((a, b) => rank(a) - rank(b) || a.scenario.name.localeCompare(b.scenario.name));
}

let discovered: Promise<readonly ScenarioModule[]> | null = null;

/** The scenarios of this folder, discovered once per process. */
export function allScenarios(): Promise<readonly ScenarioModule[]> {
  discovered ??= loadScenarios();
  return discovered;
}

/** The scenario with this name, or an error listing the known names. */
export async function findScenario(name: string): Promise<ScenarioModule> {
  const all = await allScenarios();
  const found = all.find((m) => m.scenario.name === name);
  if (!found) {
    throw new Error(
      `no scenario named "${name}"; known scenarios: ${all.map((m) => m.scenario.name).join(", ")}`,
    );
  }
  return found;
}

/** Checks what a scenario file exports; the error names the file and what is missing. */
export function asScenarioModule(file: string, loaded: unknown): ScenarioModule {
  const name = file.replace(/\.[jt]s$/, "");
  const problems: string[] = [];
  const exports = typeof loaded === "object" && loaded !== null ? loaded : {};
  const scenario = "scenario" in exports ? exports.scenario : undefined;
  const evaluate = "evaluate" in exports ? exports.evaluate : undefined;
  if (!isScenario(scenario)) problems.push("no `export const scenario = defineScenario({...})`");
  else if (scenario.name !== name) problems.push(`its scenario is named "${scenario.name}", not "${name}"`);
  if (typeof evaluate !== "function") problems.push("no `export const evaluate: Evaluator`");
  if (problems.length > 0 || !isScenario(scenario) || !isEvaluator(evaluate))
    throw new Error(`scenarios/${file}: ${problems.join("; ")}`);
  return { scenario, evaluate };
}

function isScenario(value: unknown): value is Scenario {
  return (
    typeof value === "object" &&
    value !== null &&
    "name" in value &&
    typeof value.name === "string" &&
    "kind" in value &&
    "group" in value &&
    "input" in value &&
    "expected" in value &&
    "cassette" in value
  );
}

function isEvaluator(value: unknown): value is Evaluator {
  return typeof value === "function";
}
