import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CASSETTES_DIR, SCENARIOS_DIR } from "../playground/run-scenario.js";
import { allScenarios, findScenario, loadScenarios, scenarioFiles } from "../scenarios/index.js";
import { FIXTURES_DIR, loadCassette } from "../src/index.js";
import { hiddenTests } from "./referee/hidden-tests.js";

/** docs/origins.md#03-scenarios: the scenario list's eleven, then the thirteen artifact-and-loop scenarios. */
const DESIGN_SCENARIO_COUNT = 24;
/** Added for the referee's mutation check (ADR 0027): each catches a mutation nothing else did. */
const MUTATION_SCENARIOS = ["critic_rejects_special_cased_fix", "observer_fake_repro_not_confirmed"];
/** Issue 13, ADR 0058: plans run through the compose lane, graded from plan_run.json. */
const COMPOSE_SCENARIOS = [
  "compose_plan_lands_every_task",
  "compose_review_replans_then_lands",
  "compose_task_exhausts_plan_gives_up",
  "compose_task_repaired_then_plan_lands",
];

const scenarios = await allScenarios();

describe("the scenario suite", () => {
  it("discovers every design scenario (docs/origins.md) exactly once, each in its own file named after it", () => {
    const names = scenarios.map((m) => m.scenario.name);
    expect(names).toHaveLength(DESIGN_SCENARIO_COUNT + MUTATION_SCENARIOS.length + COMPOSE_SCENARIOS.length);
    expect(names).toEqual(expect.arrayContaining([...MUTATION_SCENARIOS, ...COMPOSE_SCENARIOS]));
    expect(new Set(names).size).toBe(names.length);
    expect(
      scenarioFiles(SCENARIOS_DIR)
        .map((f) => f.replace(/\.ts$/, ""))
        .sort(),
    ).toEqual([...names].sort());
  });

  it.each(scenarios.map((m) => [m.scenario.name, m] as const))(
    "%s is runnable: cassette, fixture, coder, evaluator",
    (_name, { scenario: s, evaluate }) => {
      // A compose scenario's cassette is a folder of parts: the plan and at least its first task.
      const parts =
        s.kind === "compose" ? ["idea.json", "T1.json"].map((p) => join(s.cassette, p)) : [s.cassette];
      for (const part of parts) expect(() => loadCassette(join(CASSETTES_DIR, part))).not.toThrow();
      expect(existsSync(join(FIXTURES_DIR, s.input.fixture, "package.json"))).toBe(true);
      if (s.input.coder) expect(existsSync(join(SCENARIOS_DIR, "coders", s.input.coder))).toBe(true);
      expect(evaluate).toBeTypeOf("function");
      if (s.kind === "framer" || s.kind === "observer" || s.kind === "coder")
        expect(s.input.role).toBe(s.kind);
      if (s.kind === "observer" || s.kind === "coder") expect(s.input.task).toBeDefined();
      if (s.kind === "coder") expect(s.input.observation).toBeDefined();
      expect(s.expected.checks.length).toBeGreaterThan(0);
      if (s.kind === "compose") expect(s.expected.plan).toBeDefined();
      if (s.expected.terminal === "completed" || s.expected.plan?.state === "completed")
        expect(hiddenTests(s.referee?.hidden ?? "")).not.toEqual({});
    },
  );

  it("an unknown scenario name is refused with the list of known names", async () => {
    await expect(findScenario("iterate_eror_fix")).rejects.toThrow(
      /no scenario named "iterate_eror_fix"; known scenarios: devin_iterate_routing, /,
    );
  });
});

describe("scenario discovery", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function folder(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), "devflow-scenarios-"));
    dirs.push(dir);
    for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
    return dir;
  }
  const definition = (name: string) =>
    `export const scenario = { name: "${name}", description: "", kind: "lane", group: "arm", input: {}, expected: { checks: [] }, cassette: "x.json" };\n`;
  const evaluator = "export const evaluate = async () => ({ ok: true, notes: [], criteria: {} });\n";

  it("a file without an evaluator is an error naming the file", async () => {
    const dir = folder({ "lonely.ts": definition("lonely") });
    await expect(loadScenarios(dir)).rejects.toThrow(/scenarios\/lonely\.ts: no `export const evaluate/);
  });

  it("a file without a definition, or with a definition named otherwise, is an error naming the file", async () => {
    await expect(loadScenarios(folder({ "bare.ts": evaluator }))).rejects.toThrow(
      /scenarios\/bare\.ts: no `export const scenario/,
    );
    await expect(loadScenarios(folder({ "a_name.ts": definition("other") + evaluator }))).rejects.toThrow(
      /scenarios\/a_name\.ts: its scenario is named "other", not "a_name"/,
    );
  });

  it("leaves index.ts, scenario.ts, setups.ts and tests out and orders scenarios by group, then name", async () => {
    const dir = folder({
      "b.ts": definition("b") + evaluator,
      "a.ts": definition("a").replace('"arm"', '"subagent"') + evaluator,
      "c.ts": definition("c") + evaluator,
      "index.ts": "export {};\n",
      "scenario.ts": "export {};\n",
      "setups.ts": "export {};\n",
      "c.test.ts": "export {};\n",
    });
    expect((await loadScenarios(dir)).map((m) => m.scenario.name)).toEqual(["b", "c", "a"]);
  });
});
