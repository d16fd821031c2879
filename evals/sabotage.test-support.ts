import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { z } from "zod";
import { gradeScenario } from "../playground/run-playground.js";
import { CASSETTES_DIR, type ExecuteOptions } from "../playground/run-scenario.js";
import { findScenario } from "../scenarios/index.js";
import { type Cassette, type CassetteEntry, loadCassette, type Role } from "../src/index.js";
import type { Evaluation, ScenarioRun } from "./types.js";

/** Tests only: how the evaluator tests break a scenario on purpose and grade the broken run. */

export interface GradedRun {
  run: ScenarioRun;
  evaluation: Evaluation;
}

const REPLAY: ExecuteOptions = {
  mode: "replay",
  model: "gpt-4.1-mini",
  coder: null,
  cassetteDir: CASSETTES_DIR,
};
const made: string[] = [];

/** Runs a scenario (optionally with a replacement cassette or coder) and grades it. */
export async function runGraded(
  name: string,
  overrides: { cassette?: Cassette; coderScript?: string } = {},
): Promise<GradedRun> {
  const { execution, evaluation } = await gradeScenario(await findScenario(name), {
    ...REPLAY,
    ...overrides,
  });
  if (execution.run.repo) made.push(dirname(execution.run.repo));
  return { run: execution.run, evaluation };
}

/** Grades an existing run again (after its artifacts were tampered with). */
export async function regrade(name: string, run: ScenarioRun): Promise<Evaluation> {
  const { scenario, evaluate } = await findScenario(name);
  return evaluate(scenario, run);
}

/** The run's task directory (a test that tampers with artifacts needs one). */
export function taskDirOf(run: ScenarioRun): string {
  if (!run.taskDir)
    throw new Error(`scenario ${run.scenario} left no task directory (${run.error ?? "no error"})`);
  return run.taskDir;
}

/** Removes every fixture repo and script these helpers created. */
export function cleanupRuns(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A deep copy of a scenario's cassette, to change one answer. */
export async function cassetteOf(name: string): Promise<Cassette> {
  const { scenario } = await findScenario(name);
  return structuredClone(loadCassette(join(CASSETTES_DIR, scenario.cassette)));
}

/** The structured answer of `role`'s entry `index` (negative counts from the end), for editing in place. */
export function structuredAnswer(cassette: Cassette, role: Role, index: number): Record<string, unknown> {
  const entries: CassetteEntry[] = cassette.calls[role] ?? [];
  const entry = entries.at(index);
  if (!entry || !("structured" in entry))
    throw new Error(`cassette has no structured ${role} answer at ${index}`);
  return entry.structured;
}

/** A coder script written to a temp file (a Node ESM program run in the worktree). */
export function coderScriptFile(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-sabotage-coder-"));
  made.push(dir);
  const path = join(dir, "coder.mjs");
  writeFileSync(path, source);
  chmodSync(path, 0o755);
  return path;
}

/**
 * Rewrites one JSON artifact on disk behind the store's back, the way a buggy writer or a hand
 * edit would. It is parsed with its schema and must still match it afterwards, so the evaluator
 * is tested on a plausible lie rather than on a file the loader would reject anyway.
 */
export function tamperArtifact<S extends z.ZodType>(
  path: string,
  schema: S,
  mutate: (value: z.infer<S>) => void,
): void {
  const value = schema.parse(JSON.parse(readFileSync(path, "utf8")));
  mutate(value);
  writeFileSync(path, `${JSON.stringify(schema.parse(value), null, 2)}\n`);
}

/** The names of the criteria that failed. */
export function failed(evaluation: Evaluation): string[] {
  return Object.entries(evaluation.criteria)
    .filter(([, v]) => v === "fail")
    .map(([k]) => k);
}
