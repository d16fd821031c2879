/**
 * `npm run bench`: what devflow itself costs, on the demo with a replayed model.
 *
 * - Orchestration overhead per attempt: the wall time of the attempt's nodes (code, verify, gate,
 *   repair, commit) minus model time, coder time and the verifiers' command time, i.e. devflow's
 *   own bookkeeping (git snapshots, artifact writes and validation, checkpoints). Target ≤ 150 ms.
 * - devflow CPU per attempt: this process's CPU from the first coder start to the end, plus the git
 *   children it starts (priced at one `git rev-parse` child each, measured in the same run), since
 *   process.cpuUsage() cannot see them. Target ≤ 150 ms on that total.
 * - Child processes devflow starts per run and per attempt (bench/process-counter.ts: git, the
 *   coder, the seam and test commands), by program.
 * - Prompt bytes per critic/repair call next to the Junie orchestrator's naive review payload
 *   (docs/origins.md#00-junie-orchestrator: whole diff + whole coder log), for a quiet coder and
 *   for one that prints 1 MiB of log.
 */

import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import type { ModelGateway, StructuredCall } from "../src/models/contract.js";
import { built } from "./built.js";
import { median, printBenchHeader, RUNS } from "./preamble.js";
import { gitCommandCounts, processCounts, resetProcessCounts, totalProcesses } from "./process-counter.js";

const TARGET_MS = 150;

// The measured code, compiled (bench/built.ts): the lane and the gateway it calls.
const { runIterate } = await built<typeof import("../src/lanes/iterate/run.js")>("lanes/iterate/run.js");
const { createModelGateway } =
  await built<typeof import("../src/models/create-gateway.js")>("models/create-gateway.js");
// The bench's own reads come from dist/ too: importing them from the sources put a second copy of
// devflow's modules (and zod's schemas) in this process, ~220 MB RSS against the bin's ~140 MB, and a
// spawn's cost grows with the parent's RSS (fork copies its page tables): every process devflow
// started was priced higher here than in the bin.
const { CoderReport, DevflowEvent, VerifierEnvelope, VerifierName } = await built<
  typeof import("../src/artifacts/schemas/index.js")
>("artifacts/schemas/index.js");
const { createFixtureRepo } = await built<typeof import("../src/fixtures/create-fixture-repo.js")>(
  "fixtures/create-fixture-repo.js",
);
const { openTaskStore } = await built<typeof import("../src/home/index.js")>("home/index.js");
/** The package root, whether this file runs from bench/ (tsx) or dist-bench/ (npm run bench). */
const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url));
const { naivePromptBytes } = await built<typeof import("../src/verify/index.js")>("verify/index.js");

/** devflow's own CPU (this process: user + system) since `from`, in ms. */
const cpuMsSince = (from: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

/** CPU of reaped children (cutime + cstime from /proc/self/stat), in ms; null off Linux. */
function childrenCpuMs(): number | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 16 and 17 of proc(5) (cutime, cstime), counted from after the command name.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/**
 * One bare `git rev-parse HEAD` started from this process, measured in the same run: the CPU it
 * costs this process (the spawn) and the CPU of the git child itself. The attempt figure is given
 * in the first unit; the second prices the git children devflow starts per attempt, which
 * process.cpuUsage() cannot see (issue 11: the bench counted devflow's in-process CPU only).
 */
function gitSpawnCpuMs(cwd: string): { parentMs: number; childMs: number | null } {
  for (let i = 0; i < 3; i++) execFileSync("git", ["rev-parse", "HEAD"], { cwd, stdio: "ignore" });
  const from = process.cpuUsage();
  const childFrom = childrenCpuMs();
  // The children's CPU is read in clock ticks (10 ms): 40 spawns left the unit ±0.25 ms, ±4.6 ms on the
  // judged total of 18.5 per attempt (perf25's notes); 200 make it ±0.05 ms.
  const n = 200;
  for (let i = 0; i < n; i++) execFileSync("git", ["rev-parse", "HEAD"], { cwd, stdio: "ignore" });
  const childTo = childrenCpuMs();
  return {
    parentMs: cpuMsSince(from) / n,
    childMs: childFrom === null || childTo === null ? null : (childTo - childFrom) / n,
  };
}
const CASSETTE = join(PACKAGE_ROOT, "scenarios", "cassettes", "demo.json");
const NEAR_MISS = join(PACKAGE_ROOT, "scenarios", "coders", "near-miss-coder.mjs");
const REQUEST =
  "CSV import rejects emails that have spaces around them, like ' alice@example.com '. They should be trimmed and imported.";

interface Measured {
  gateway: ModelGateway;
  /** Model time inside the attempt nodes only: the critic (verify) and repair guidance (repair). */
  attemptModelMs: number;
  promptBytes: { role: string; bytes: number }[];
}

/** Wraps the replay gateway to time model calls and weigh every structured prompt. */
function measuredGateway(): Measured {
  const inner = createModelGateway({ mode: "replay", cassettePath: CASSETTE, model: "gpt-4.1-mini" });
  const m: Measured = { gateway: inner, attemptModelMs: 0, promptBytes: [] };
  m.gateway = {
    ...inner,
    mode: inner.mode,
    recordExternalUsage: (...args) => inner.recordExternalUsage(...args),
    modelName: (role) => inner.modelName(role),
    chatModel: (role) => inner.chatModel(role),
    usage: () => inner.usage(),
    setAttempt: (id) => inner.setAttempt(id),
    flush: () => inner.flush(),
    structured: async <S extends z.ZodType>(call: StructuredCall<S>) => {
      const bytes = call.messages.reduce((n, msg) => n + Buffer.byteLength(String(msg.content)), 0);
      m.promptBytes.push({ role: call.role, bytes });
      const t = performance.now();
      try {
        return await inner.structured(call);
      } finally {
        if (call.role === "critic" || call.role === "iterator") m.attemptModelMs += performance.now() - t;
      }
    },
  };
  return m;
}

async function runOnce(coder: string) {
  const repo = createFixtureRepo("csv-import");
  const measured = measuredGateway();
  resetProcessCounts();
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  // Everything from the first coder attempt's start to the run's end (every node, checkpoint,
  // artifact write, handling of the coder's output, the commit and the final user-repo check),
  // in this process: the honest per-attempt figure (issue 11). The coder, the tests and git run
  // in children and are not in it; their processes are counted below.
  let attemptsFrom: {
    cpu: NodeJS.CpuUsage;
    processes: number;
    setupCpuMs: number;
    git: Record<string, number>;
    gitProcesses: number;
  } | null = null;
  const outcome = await runIterate({
    request: REQUEST,
    repo,
    baseDir: ".",
    taskId: "bench",
    resume: false,
    model: "gpt-4.1-mini",
    coder,
    mode: "replay",
    gateway: measured.gateway,
    lane: { maxJudgeAttempts: 3, baseTimeoutMs: 60_000, commandTimeoutMs: 60_000 },
    onProgress: (event) => {
      if (attemptsFrom === null && event.node === "code" && event.phase === "start")
        attemptsFrom = {
          cpu: process.cpuUsage(),
          processes: totalProcesses(),
          setupCpuMs: cpuMsSince(cpuAtStart),
          git: gitCommandCounts(),
          gitProcesses: processCounts().git ?? 0,
        };
    },
  });
  const attemptPhase = attemptsFrom as {
    cpu: NodeJS.CpuUsage;
    processes: number;
    setupCpuMs: number;
    git: Record<string, number>;
    gitProcesses: number;
  } | null;
  if (!attemptPhase) throw new Error("the bench lane never started a coder");
  const attemptPhaseCpuMs = cpuMsSince(attemptPhase.cpu);
  const attemptPhaseProcesses = totalProcesses() - attemptPhase.processes;
  const attemptPhaseGit = (processCounts().git ?? 0) - attemptPhase.gitProcesses;
  if (outcome.kind === "needs_answers") throw new Error("the bench lane paused with questions");
  const { result } = outcome;
  const wallMs = performance.now() - started;
  const processes = totalProcesses();
  const byProgram = processCounts();
  if (process.env.BENCH_GIT_DETAIL) {
    const before = attemptPhase.git;
    const during = Object.entries(gitCommandCounts())
      .map(([sub, n]) => [sub, n - (before[sub] ?? 0)] as const)
      .filter(([, n]) => n > 0);
    console.log("git per run", gitCommandCounts(), "from the first attempt on", Object.fromEntries(during));
  }
  const store = openTaskStore(repo, "bench");
  const events = readFileSync(join(store.dir, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => DevflowEvent.parse(JSON.parse(l)));
  const attemptNodes = new Set(["code", "verify", "gate", "repair", "commit"]);
  const nodeMs = events
    .filter((e) => e.phase === "end" && attemptNodes.has(e.node))
    .reduce((n, e) => n + (e.duration_ms ?? 0), 0);
  let coderMs = 0;
  let commandMs = 0;
  let naiveBytes = 0;
  const attempts = await store.listAttempts();
  for (const id of attempts) {
    const report = await store.readAttemptJson(id, "coder_report.json", CoderReport);
    coderMs += report?.duration_ms ?? 0;
    for (const name of VerifierName.options) {
      const env = await store.readAttemptJson(id, `verifiers/${name}.json`, VerifierEnvelope);
      if (env && name !== "critic") commandMs += env.duration_ms;
    }
    const diff = readFileSync(join(store.dir, "attempts", id, "cumulative.diff.patch"), "utf8");
    const log = readFileSync(join(store.dir, "attempts", id, "coder_transcript.log"), "utf8");
    naiveBytes = Math.max(naiveBytes, naivePromptBytes(diff, log, REQUEST));
  }
  const attemptModelMs = measured.attemptModelMs;
  const overheadMs = Math.max(0, nodeMs - coderMs - commandMs - attemptModelMs) / attempts.length;
  const judged = measured.promptBytes.filter((p) => p.role === "critic" || p.role === "iterator");
  const measuredRun = {
    cpuPerAttemptMs: attemptPhaseCpuMs / attempts.length,
    setupCpuMs: attemptPhase.setupCpuMs,
    processesPerAttempt: attemptPhaseProcesses / attempts.length,
    gitPerAttempt: attemptPhaseGit / attempts.length,
    gitSpawn: gitSpawnCpuMs(repo),
    verdict: result.terminal.verdict,
    attempts: attempts.length,
    wallMs,
    processes,
    byProgram,
    overheadMs,
    overheadShare: (overheadMs * attempts.length) / wallMs,
    maxJudgedPromptBytes: Math.max(...judged.map((p) => p.bytes)),
    naiveBytes,
  };
  // The sample repo and its temp dir (createFixtureRepo's parent): a bench run left one per run in TMPDIR.
  rmSync(dirname(repo), { recursive: true, force: true });
  return measuredRun;
}

async function scenario(label: string, coder: string) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await runOnce(coder));
  const verdicts = [...new Set(runs.map((r) => r.verdict))].join(",");
  console.log(`\n${label} (${RUNS} runs, verdict ${verdicts}, ${runs[0]?.attempts} attempts each)`);
  console.log(`  wall time per run           ${median(runs.map((r) => r.wallMs)).toFixed(0)} ms (median)`);
  const overhead = median(runs.map((r) => r.overheadMs));
  console.log(
    `  orchestration overhead      ${overhead.toFixed(1)} ms per attempt, ${(100 * median(runs.map((r) => r.overheadShare))).toFixed(1)}% of the run: ${overhead <= TARGET_MS ? "meets" : "MISSES"} the ≤ ${TARGET_MS} ms target`,
  );
  const cpu = median(runs.map((r) => r.cpuPerAttemptMs));
  const unit = median(runs.map((r) => r.gitSpawn.parentMs));
  const childUnits = runs.map((r) => r.gitSpawn.childMs).filter((m): m is number => m !== null);
  const gits = median(runs.map((r) => r.gitPerAttempt));
  // The git children devflow starts are its work too: priced at one rev-parse child each (most
  // per-attempt git calls are that small; a diff or pack of a big change costs more, so this is a
  // floor, not a ceiling). Off Linux (no /proc) only the in-process figure is printed.
  const childMs = childUnits.length > 0 ? median(childUnits) : null;
  const total = childMs === null ? cpu : cpu + gits * childMs;
  console.log(
    `  devflow CPU per attempt     ${cpu.toFixed(1)} ms in this process (first code start to the end, / attempts) = ${(cpu / unit).toFixed(1)}× one \`git rev-parse\` spawn (${unit.toFixed(2)} ms CPU here, same run); ${median(runs.map((r) => r.processesPerAttempt)).toFixed(1)} processes per attempt, ${gits.toFixed(1)} of them git`,
  );
  console.log(
    `  devflow CPU per attempt, with its git children ${total.toFixed(1)} ms${childMs === null ? " (no /proc: git children not priced)" : ` (+ ${gits.toFixed(1)} git × ${childMs.toFixed(2)} ms child CPU of one rev-parse, same run)`}: ${total <= TARGET_MS ? "meets" : "MISSES"} the ≤ ${TARGET_MS} ms target`,
  );
  console.log(
    `  devflow CPU before attempt 1 ${median(runs.map((r) => r.setupCpuMs)).toFixed(0)} ms (task setup, frame, observe, readiness; the first run also loads modules)`,
  );
  const processes = median(runs.map((r) => r.processes));
  const programs = Object.entries(runs.at(-1)?.byProgram ?? {})
    .map(([program, n]) => `${n} ${program}`)
    .join(", ");
  console.log(
    `  child processes             ${processes} per run (${programs}), ${(processes / (runs[0]?.attempts ?? 1)).toFixed(1)} per attempt`,
  );
  console.log(`  largest critic/repair prompt ${median(runs.map((r) => r.maxJudgedPromptBytes))} bytes`);
  console.log(
    `  naive orchestrator review   ${median(runs.map((r) => r.naiveBytes))} bytes (whole diff + whole coder log)`,
  );
}

printBenchHeader("orchestration", "replayed model, ", "numbers grow on a busy machine");
/** `BENCH_ONLY=demo` runs the demo scenario alone (for profiling one lane with `node --cpu-prof`). */
const only = process.env.BENCH_ONLY;
await scenario("demo: near miss then repair", `command:node ${JSON.stringify(NEAR_MISS)}`);
if (only !== "demo")
  await scenario(
    "noisy coder: same fix, 1 MiB of log per run",
    `command:node -e ${JSON.stringify(`process.stdout.write("x".repeat(1 << 20) + "\\n")`)} && node ${JSON.stringify(NEAR_MISS)}`,
  );
