import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, relative, resolve } from "node:path";
import { grade } from "../evals/grade.js";
import { refereeCompose } from "../evals/referee/compose-referee.js";
import { refereeRun } from "../evals/referee/referee.js";
import type { Check, Evaluation } from "../evals/types.js";
import type { ScenarioModule } from "../scenarios/index.js";
import type { ScenarioGroup, ScenarioKind } from "../scenarios/scenario.js";
import { devflowVersion } from "../src/index.js";
import { mapBounded } from "./bounded-pool.js";
import {
  type ExecuteOptions,
  executeScenario,
  type PlaygroundMode,
  type ScenarioExecution,
} from "./run-scenario.js";
import { messageOf } from "./runners/routing.js";

export interface ScenarioResult {
  name: string;
  kind: ScenarioKind;
  group: ScenarioGroup;
  description: string;
  ok: boolean;
  criteriaPassed: number;
  criteriaTotal: number;
  evaluation: Evaluation;
  durationMs: number;
  tokens: number;
  costUsd: number;
  error: string | null;
  /** The run's fixture repo, kept for inspection when the scenario failed or --keep was given. */
  keptAt: string | null;
  /** The task's artifact dir (`<repo>/.devflow/iterate/<id>`) when the run was kept and reached the lane. */
  artifactDir?: string | null;
}

export interface PlaygroundReport {
  startedAt: string;
  /** The devflow version that ran the suite (package.json). */
  version?: string;
  mode: PlaygroundMode;
  model: string;
  coder: string;
  concurrency: number;
  durationMs: number;
  passed: number;
  failed: number;
  results: ScenarioResult[];
}

export interface PlaygroundOptions extends Omit<ExecuteOptions, "cassette" | "coderScript"> {
  scenarios: readonly ScenarioModule[];
  concurrency: number;
  /** Keep every run's fixture repo (failed runs are always kept). */
  keep: boolean;
  onResult?: (result: ScenarioResult) => void;
}

/** Runs one scenario and grades it with its evaluator; an evaluator that throws fails the scenario. */
export async function gradeScenario(
  { scenario, evaluate }: ScenarioModule,
  opts: ExecuteOptions,
): Promise<{ execution: ScenarioExecution; evaluation: Evaluation }> {
  const execution = await executeScenario(scenario, opts);
  let evaluation: Evaluation;
  try {
    evaluation = await evaluate(scenario, execution.run);
  } catch (error) {
    evaluation = { ok: false, notes: [`the evaluator crashed: ${messageOf(error)}`], criteria: {} };
  }
  evaluation = withReferee(evaluation, await refereeChecks(scenario, execution, opts));
  return { execution, evaluation: withCassetteConsumed(evaluation, execution, scenario.cassette) };
}

/** The independent referee's checks (evals/referee); a referee that cannot run fails the scenario. */
async function refereeChecks(
  scenario: ScenarioModule["scenario"],
  execution: ScenarioExecution,
  opts: ExecuteOptions,
): Promise<Check[]> {
  try {
    const referee = scenario.kind === "compose" ? refereeCompose : refereeRun;
    return await referee(scenario, execution.run, { cassetteDir: opts.cassetteDir });
  } catch (error) {
    return [
      { criterion: "referee_ran", pass: false, note: `the referee could not run: ${messageOf(error)}` },
    ];
  }
}

/** The evaluator's verdict plus the referee's: both must pass, referee failures listed first. */
function withReferee(evaluation: Evaluation, checks: Check[]): Evaluation {
  if (checks.length === 0) return evaluation;
  const referee = grade(checks);
  return {
    ok: evaluation.ok && referee.ok,
    notes: [...referee.notes, ...evaluation.notes],
    criteria: { ...evaluation.criteria, ...referee.criteria },
  };
}

/**
 * A replay that passed but left cassette answers unused has drifted from its cassette (the lane
 * made fewer calls than were recorded): it fails, naming each role and how many answers are left.
 * A run that already failed stopped early, so leftovers say nothing new there.
 */
function withCassetteConsumed(
  evaluation: Evaluation,
  execution: ScenarioExecution,
  cassette: string,
): Evaluation {
  const left = Object.entries(execution.unusedReplies).filter(([, n]) => n > 0);
  if (!evaluation.ok || left.length === 0) return evaluation;
  const counts = left.map(([role, n]) => `${role}: ${n}`).join(", ");
  return {
    ok: false,
    notes: [
      `cassette_fully_replayed: ${cassette} has answers no call used (${counts}); trim them or find the missing calls`,
      ...evaluation.notes,
    ],
    criteria: { ...evaluation.criteria, cassette_fully_replayed: "fail" },
  };
}

/**
 * The scenario suite: every selected scenario runs on its own fresh fixture repo, at most
 * `concurrency` at a time, and is graded by its evaluator. Passing runs are cleaned up.
 */
export async function runPlayground(opts: PlaygroundOptions): Promise<PlaygroundReport> {
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const results = await mapBounded(opts.scenarios, opts.concurrency, async (module) => {
    const { scenario } = module;
    const { execution, evaluation } = await gradeScenario(module, opts);
    const values = Object.values(evaluation.criteria);
    const repo = execution.run.repo;
    const keep = opts.keep || !evaluation.ok;
    if (!keep && repo) removeTempRun(repo);
    const result: ScenarioResult = {
      name: scenario.name,
      kind: scenario.kind,
      group: scenario.group,
      description: scenario.description,
      ok: evaluation.ok,
      criteriaPassed: values.filter((v) => v === "pass").length,
      criteriaTotal: values.length,
      evaluation,
      durationMs: execution.durationMs,
      tokens: execution.usage.total.total_tokens,
      costUsd: execution.usage.total.cost_usd,
      error: execution.run.error,
      keptAt: keep ? repo : null,
      artifactDir: keep ? execution.run.taskDir : null,
    };
    opts.onResult?.(result);
    return result;
  });
  const passed = results.filter((r) => r.ok).length;
  return {
    startedAt,
    version: devflowVersion(),
    mode: opts.mode,
    model: opts.model,
    coder: opts.coder ?? "scripted (scenarios/coders)",
    concurrency: opts.concurrency,
    durationMs: Math.round(performance.now() - started),
    passed,
    failed: results.length - passed,
    results,
  };
}

/** Removes the temp dir createFixtureRepo made for a run, and only such a dir. */
function removeTempRun(repo: string): void {
  const dir = dirname(resolve(repo));
  const inTmp = !relative(resolve(tmpdir()), dir).startsWith("..");
  if (inTmp && /devflow-[^/]+$/.test(dir)) rmSync(dir, { recursive: true, force: true });
}
