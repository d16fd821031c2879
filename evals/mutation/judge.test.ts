import { describe, expect, it } from "vitest";
import { allScenarios } from "../../scenarios/index.js";
import { judgeMutant, type RunScenarios, type SuiteRun } from "./judge.js";
import { MUTATIONS } from "./mutations.js";

/**
 * The two-phase mutant run must give the whole suite's verdict: a mutant the hinted catchers miss
 * but another scenario catches is still caught, and one no scenario catches is never "caught".
 */
const SUITE = ["a", "b", "c", "d"];

/** A fake suite where `redOnes` go red; records what each call selected. */
function suite(redOnes: string[]): { run: RunScenarios; calls: string[][] } {
  const calls: string[][] = [];
  const run: RunScenarios = async (selection) => {
    const names =
      "only" in selection ? [...selection.only] : SUITE.filter((n) => !selection.except.includes(n));
    calls.push(names);
    const result: SuiteRun = {
      kind: "ran",
      red: names.filter((n) => redOnes.includes(n)).map((name) => ({ name, criteria: ["x"] })),
      total: names.length,
    };
    return result;
  };
  return { run, calls };
}

describe("judgeMutant", () => {
  it("stops after the catchers when one of them is red", async () => {
    const { run, calls } = suite(["b"]);
    expect(await judgeMutant(["b"], run, false)).toEqual({
      kind: "caught",
      red: [{ name: "b", criteria: ["x"] }],
      ran: 1,
      phase: "catchers",
    });
    expect(calls).toEqual([["b"]]);
  });

  it("runs the rest of the suite when the catchers stay green, and is caught by another scenario", async () => {
    const { run, calls } = suite(["d"]);
    const verdict = await judgeMutant(["a"], run, false);
    expect(verdict).toEqual({
      kind: "caught",
      red: [{ name: "d", criteria: ["x"] }],
      ran: 4,
      phase: "whole suite",
    });
    expect(calls).toEqual([["a"], ["b", "c", "d"]]);
  });

  it("is not caught when no scenario of the suite goes red", async () => {
    const { run } = suite([]);
    expect(await judgeMutant(["a", "b"], run, false)).toEqual({ kind: "not_caught", ran: 4 });
  });

  it("--full runs the whole suite once", async () => {
    const { run, calls } = suite(["a", "c"]);
    const verdict = await judgeMutant(["a"], run, true);
    expect(verdict).toMatchObject({ kind: "caught", ran: 4 });
    expect(calls).toEqual([SUITE]);
  });

  it("a run that wrote no report is a problem, never a verdict", async () => {
    const run: RunScenarios = async () => ({
      kind: "no_report",
      problem: "the suite wrote no report (exit 1)",
    });
    expect(await judgeMutant(["a"], run, false)).toEqual({
      kind: "problem",
      problem: "the suite wrote no report (exit 1)",
    });
  });

  it("every mutation names catchers that are scenarios of the suite", async () => {
    const names = new Set((await allScenarios()).map((s) => s.scenario.name));
    for (const mutation of MUTATIONS) {
      expect(mutation.caughtBy.length, mutation.name).toBeGreaterThan(0);
      for (const name of mutation.caughtBy) expect(names.has(name), `${mutation.name}: ${name}`).toBe(true);
    }
  });
});
