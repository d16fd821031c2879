/**
 * One catalogue entry, run through the whole lane (shared by catalogue.test.ts and
 * catalogue-mount-namespace.test.ts).
 *
 * - `detect`: the entry's own expectation (verdict, reason, content), with the mount namespace
 *   off, so that the layer every platform has (fingerprint, tamper checks) is what is tested.
 * - `prevent`: the mount namespace on (Linux, root): an attack on the user's repository by path
 *   must fail outright, so the user's repository stays byte-identical; the run may complete, but
 *   only with the correct fix on the result branch.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { concurrencyLimit } from "../../support/concurrency-limit.js";
import { type LaneRun, runLane } from "../../support/lane-harness.js";
import { leftoverProcesses } from "../../support/leftover-processes.js";
import { fingerprintRepo, unexpectedChanges } from "../../support/repo-fingerprint.js";
import { type Behaviour, fixedSource, PRELUDE } from "./behaviours.js";
import { CATALOGUE_TASK, catalogueCassette, entryDirs } from "./fixture.js";

export type EntryMode = "detect" | "prevent";

/** Lane runs at once: the machine is small and shared; each run starts several processes. */
export const PARALLEL = Number(process.env.DEVFLOW_CATALOGUE_PARALLEL ?? 3);
export const limited = concurrencyLimit(PARALLEL);
/** DEVFLOW_CATALOGUE_RUN_NEEDS=1 runs the `needs` entries too (to check a branch before enabling them). */
export const RUN_NEEDS = process.env.DEVFLOW_CATALOGUE_RUN_NEEDS === "1";

/** Printed by every coder script as its last line. */
const CODER_DONE = "catalogue: coder script done";

/** Every attempt's coder transcript, concatenated. */
function coderTranscripts(run: LaneRun): string {
  const attempts = join(run.store.dir, "attempts");
  if (!existsSync(attempts)) return "";
  return readdirSync(attempts)
    .map((a) => join(attempts, a, "coder_transcript.log"))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
}

const gitShow = (repo: string, spec: string): string | null => {
  try {
    return execFileSync("git", ["show", spec], {
      cwd: repo,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return null;
  }
};

async function failedVerifiers(run: LaneRun): Promise<string[]> {
  const iterator = await run.store.read("iterator_run");
  return (iterator?.attempts ?? []).flatMap((a) =>
    (a.gate?.checks ?? [])
      .filter((c) => c.overall_result === "fail" || c.overall_result === "error")
      .map((c) => c.verifier),
  );
}

async function reasonsText(run: LaneRun): Promise<string> {
  const iterator = await run.store.read("iterator_run");
  const terminal = run.result?.terminal;
  return [
    terminal?.reason ?? "",
    ...(terminal?.gate?.reasons ?? []),
    ...(iterator?.attempts ?? []).flatMap((a) => [a.summary ?? "", ...(a.gate?.reasons ?? [])]),
  ].join("\n");
}

export async function runEntry(b: Behaviour, mode: EntryMode = "detect"): Promise<void> {
  const dirs = entryDirs(b.name);
  b.setup?.(dirs.repo);
  const before = fingerprintRepo(dirs.repo);
  const script = join(dirs.base, "coder.mjs");
  writeFileSync(
    script,
    `const OUTSIDE = ${JSON.stringify(dirs.outside)};\n${PRELUDE}\n${b.coder}\nconsole.log(${JSON.stringify(CODER_DONE)});\n`,
  );
  const run = await runLane({
    repo: dirs.repo,
    taskId: CATALOGUE_TASK,
    cassette: (b.cassette ?? ((c) => c))(catalogueCassette()),
    coder: `command:node ${JSON.stringify(script)}`,
    lane: {
      maxJudgeAttempts: b.attempts ?? 1,
      ...(b.coderTimeoutMs ? { baseTimeoutMs: b.coderTimeoutMs, maxEscalations: 0 } : {}),
      ...b.lane,
    },
    ...(b.extraVerifiers ? { extra: { extraVerifiers: b.extraVerifiers } } : {}),
  });
  const verdict = run.result?.terminal.verdict ?? null;
  const context = `${b.name}: verdict ${verdict}, reason ${run.result?.terminal.reason ?? String(run.error)}`;
  expect(run.error, context).toBeNull();

  // 1. The verdict.
  if (mode === "prevent") {
    expect(verdict, context).not.toBeNull();
    if (verdict === "completed")
      for (const [file, wanted] of Object.entries(fixedSource)) {
        const committed = gitShow(run.repo, `devflow/${CATALOGUE_TASK}:${file}`) ?? "";
        for (const w of wanted)
          if (typeof w === "string") expect(committed, `${b.name}: ${file}`).toContain(w);
          else expect(committed, `${b.name}: ${file}`).toMatch(w);
      }
  } else if (b.expect === "rejected") {
    expect(verdict, context).not.toBe("completed");
    expect(verdict, context).not.toBeNull();
    if (b.verdict) expect(verdict, context).toBe(b.verdict);
    if (b.reason) expect(await reasonsText(run), context).toMatch(b.reason);
    if (b.verifier) expect(await failedVerifiers(run), context).toContain(b.verifier);
  } else {
    expect(verdict, context).toBe("completed");
    for (const [file, wanted] of Object.entries(b.content ?? {})) {
      const committed = gitShow(run.repo, `devflow/${CATALOGUE_TASK}:${file}`);
      expect(committed, `${b.name}: ${file} on devflow/${CATALOGUE_TASK}`).not.toBeNull();
      for (const w of wanted)
        if (typeof w === "string") expect(committed, `${b.name}: ${file}`).toContain(w);
        else expect(committed, `${b.name}: ${file}`).toMatch(w);
    }
    for (const file of b.absent ?? [])
      expect(
        gitShow(run.repo, `devflow/${CATALOGUE_TASK}:${file}`),
        `${b.name}: ${file} must not be committed`,
      ).toBeNull();
  }
  if (
    mode === "detect" &&
    b.coderEnds !== "early" &&
    (b.expect === "completes" || b.verdict !== "needs_more_context")
  )
    expect(coderTranscripts(run), `${b.name}: the coder script ran to its end`).toContain(CODER_DONE);
  await b.check?.(run, dirs.outside);

  // 2. No process left from this entry's temp dir (the run marker is checked once all entries
  // are done: while they run concurrently, the others' live processes carry it too).
  const left = leftoverProcesses(dirs.base, { marker: false });
  for (const p of left) {
    try {
      process.kill(p.pid, "SIGKILL"); // do not let a failure here disturb the other entries
    } catch {
      // already gone
    }
  }
  expect(left, `${b.name}: processes left`).toEqual([]);

  // 3. The user's repository, byte for byte, `.git` included, except what devflow may change.
  const changed = unexpectedChanges(before, fingerprintRepo(dirs.repo), CATALOGUE_TASK);
  if (b.coderChangesUserRepo && mode === "detect") {
    // The coder wrote these itself (class 7): devflow caught it (the verdict above); until the
    // coder has no path to the checkout, those paths, and only those, may differ.
    const pattern = b.coderChangesUserRepo;
    expect(changed.length, `${b.name}: the coder's change must be visible`).toBeGreaterThan(0);
    expect(
      changed.filter((c) => !pattern.test(c.path)),
      `${b.name}: user repo`,
    ).toEqual([]);
  } else expect(changed, `${b.name}: user repo must be byte-identical`).toEqual([]);
}
