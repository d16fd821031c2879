import { join } from "node:path";
import type { Scenario } from "../../scenarios/scenario.js";
import { loadCassette, PACKAGE_ROOT } from "../../src/index.js";

/** The seam as the scenario itself defines it: the command and the test files it writes. */
export interface SeamDefinition {
  command: string;
  /** Repo-relative path → content, exactly as the scenario hands them to devflow. */
  files: Record<string, string>;
}

export const CASSETTES_DIR = join(PACKAGE_ROOT, "scenarios", "cassettes");

/**
 * The seam of a scenario read from its own definition, never from the run's artifacts: a coder
 * scenario's seeded observation, or else the Observer's answers in the scenario's cassette (every
 * `write_test_file` call, the last write of a path winning, and the `failing_seam` of its last
 * final report). Null when the scenario defines no seam (it must then never claim one).
 */
export function seamOfScenario(scenario: Scenario, cassetteDir = CASSETTES_DIR): SeamDefinition | null {
  const seeded = scenario.input.observation;
  if (seeded) {
    const seam = seeded.findings.failing_seam;
    return seam ? { command: seam.command, files: { ...seeded.seamFiles } } : null;
  }
  return seamOfCassette(join(cassetteDir, scenario.cassette));
}

/**
 * The seam a cassette's Observer answers define (every `write_test_file`, the last write of a path
 * winning, and the last final report's `failing_seam`); null when it defines none. A compose
 * scenario's tasks each have their own cassette (`T1.json` …), so the referee reads each.
 */
export function seamOfCassette(cassettePath: string): SeamDefinition | null {
  const observer = loadCassette(cassettePath).calls.observer ?? [];
  const files: Record<string, string> = {};
  let command: string | null = null;
  for (const entry of observer) {
    for (const call of "tool_calls" in entry ? (entry.tool_calls ?? []) : []) {
      const args = call.args as { path?: unknown; content?: unknown };
      if (
        call.name === "write_test_file" &&
        typeof args.path === "string" &&
        typeof args.content === "string"
      )
        files[args.path] = args.content;
    }
    if ("structured" in entry) command = seamCommandOf(entry.structured);
  }
  return command === null ? null : { command, files };
}

function seamCommandOf(structured: unknown): string | null {
  if (typeof structured !== "object" || structured === null || !("failing_seam" in structured)) return null;
  const seam = structured.failing_seam;
  if (typeof seam !== "object" || seam === null || !("command" in seam)) return null;
  return typeof seam.command === "string" ? seam.command : null;
}
