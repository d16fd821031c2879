import { execFileSync, spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { allScenarios } from "../../scenarios/index.js";
import { judgeMutant, type MutantVerdict, type RunScenarios } from "./judge.js";
import { applyEdit, MUTATIONS, type Mutation } from "./mutations.js";

/**
 * `npm run eval:mutants` (ADR 0027): proves the scenario suite catches a lying verifier. For each
 * mutation it copies the source (every tracked and untracked, not ignored file; node_modules
 * linked) into a temp dir, applies the mutation as a source edit, runs the scenario suite there
 * and records which scenarios went red: first only the scenarios the mutation names as its catchers
 * (`caughtBy`); when none of them is red, the rest of the suite (judgeMutant). The verdict is the
 * whole suite's (replay is deterministic, so "some scenario is red" is decided either way); `--full`
 * runs every scenario for the complete table. It fails when a mutation turns no scenario red, when
 * its anchor is gone (a mutation that no longer applies is not a silent pass), or when the suite
 * did not produce a report. Prints a table: mutation → scenarios that went red (and why).
 */

interface Outcome {
  mutation: Mutation;
  verdict: MutantVerdict;
  durationMs: number;
}

interface ReportShape {
  results: {
    name: string;
    ok: boolean;
    keptAt: string | null;
    evaluation: { criteria: Record<string, string> };
  }[];
}

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..", "..");

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const full = args.includes("--full");
  const only = args.filter((a) => a !== "--full");
  const selected = only.length > 0 ? MUTATIONS.filter((m) => only.includes(m.name)) : MUTATIONS;
  const outcomes: Outcome[] = [];
  for (const mutation of selected) {
    process.stderr.write(`mutant ${mutation.name}: ${mutation.lie} …\n`);
    outcomes.push(await runMutant(mutation, full));
  }
  process.stdout.write(renderTable(outcomes, full));
  const failed = outcomes.filter((o) => o.verdict.kind !== "caught");
  process.stdout.write(
    failed.length === 0
      ? `${outcomes.length} mutation(s), each caught by at least one scenario\n`
      : `${failed.length} of ${outcomes.length} mutation(s) NOT caught: ${failed.map((o) => o.mutation.name).join(", ")}\n`,
  );
  return failed.length === 0 ? 0 : 1;
}

async function runMutant(mutation: Mutation, full: boolean): Promise<Outcome> {
  const started = performance.now();
  const tmp = mkdtempSync(join(tmpdir(), "devflow-mutant-"));
  const outcome = (verdict: MutantVerdict): Outcome => ({
    mutation,
    verdict,
    durationMs: Math.round(performance.now() - started),
  });
  try {
    const copy = join(tmp, "src-copy");
    copySource(ROOT, copy);
    for (const edit of mutation.edits) {
      const path = join(copy, edit.file);
      if (!existsSync(path)) return outcome({ kind: "problem", problem: `${edit.file} does not exist` });
      const applied = applyEdit(readFileSync(path, "utf8"), edit);
      if ("problem" in applied) return outcome({ kind: "problem", problem: applied.problem });
      writeFileSync(path, applied.text);
    }
    let runs = 0;
    const allNames = (await allScenarios()).map((s) => s.scenario.name);
    const runScenarios: RunScenarios = async (selection) => {
      const names =
        "only" in selection ? [...selection.only] : allNames.filter((n) => !selection.except.includes(n));
      const reportDir = join(tmp, `report-${++runs}`);
      const exit = await runSuite(copy, reportDir, names);
      const reportPath = join(reportDir, "report.json");
      if (!existsSync(reportPath))
        return { kind: "no_report", problem: `the suite wrote no report (exit ${exit})` };
      const report = JSON.parse(readFileSync(reportPath, "utf8")) as ReportShape;
      for (const r of report.results) if (r.keptAt) removeKeptRun(r.keptAt);
      const red = report.results
        .filter((r) => !r.ok)
        .map((r) => ({
          name: r.name,
          criteria: Object.entries(r.evaluation.criteria)
            .filter(([, v]) => v === "fail")
            .map(([k]) => k),
        }));
      return { kind: "ran", red, total: report.results.length };
    };
    return outcome(await judgeMutant(mutation.caughtBy, runScenarios, full));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Tracked and untracked (not ignored) files, so uncommitted work is mutated too; node_modules linked. */
function copySource(root: string, to: string): void {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  // A worktree's `node_modules` may itself be a link (.gitignore's `node_modules/` matches folders only).
  for (const file of listed.split("\0").filter((f) => f !== "" && f !== "node_modules")) {
    const from = join(root, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(from, join(to, file));
  }
  symlinkSync(join(root, "node_modules"), join(to, "node_modules"), "dir");
}

/** `tsx playground/main.ts` in the copy: the suite `npm run eval` runs (these scenarios), replayed from cassettes. */
function runSuite(copy: string, reportDir: string, names: readonly string[]): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        join(copy, "node_modules", "tsx", "dist", "cli.mjs"),
        "playground/main.ts",
        "--report",
        reportDir,
        ...names.flatMap((name) => ["--scenario-name", name]),
      ],
      { cwd: copy, stdio: ["ignore", "ignore", "inherit"] },
    );
    child.on("error", fail);
    child.on("close", (code) => done(code));
  });
}

/** A failed scenario keeps its temp fixture repo; a mutant fails many, so they are removed here. */
function removeKeptRun(repo: string): void {
  const dir = dirname(resolve(repo));
  const inTmp = !relative(resolve(tmpdir()), dir).startsWith("..");
  if (inTmp && /devflow-[^/]+$/.test(dir)) rmSync(dir, { recursive: true, force: true });
}

function renderTable(outcomes: Outcome[], full: boolean): string {
  const lines = [
    "",
    full
      ? "mutation → scenarios that went red (whole suite)"
      : "mutation → scenarios that went red (its catchers first; the rest of the suite only when none of them is red; --full for every scenario)",
    "",
  ];
  for (const o of outcomes) {
    const seconds = `${(o.durationMs / 1000).toFixed(1)}s`;
    const v = o.verdict;
    if (v.kind === "problem")
      lines.push(`${o.mutation.name} (${o.mutation.lie}): FAILED, ${seconds}`, `  - ${v.problem}`);
    else if (v.kind === "not_caught")
      lines.push(`${o.mutation.name} (${o.mutation.lie}): NOT CAUGHT, 0/${v.ran} red, ${seconds}`);
    else {
      lines.push(
        `${o.mutation.name} (${o.mutation.lie}): caught, ${v.red.length}/${v.ran} red (${v.phase}), ${seconds}`,
      );
      for (const r of v.red) lines.push(`  - ${r.name}: ${r.criteria.join(", ")}`);
    }
  }
  return `${lines.join("\n")}\n\n`;
}

process.exitCode = await main();
