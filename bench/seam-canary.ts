/**
 * `npx tsx bench/seam-canary.ts`: what the seam canary (ADR 0028) adds to one seam run, per real
 * runner, on the fixtures of test/fixtures/runners after the correct fix: the same pinned
 * invocation run with and without the canary, alternating, BENCH_RUNS times each (default 5);
 * medians. The canary loads the seam file a second time (its own process or module registry for
 * node:test, jest and vitest; a cache hit for mocha and tape) and runs one more test.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { reportPathFor, runWithReport } from "../src/verify/report-run.js";
import { checkSeamRedOnBase } from "../src/verify/seam.js";
import { withSeamCanary } from "../src/verify/seam-canary.js";
import { makeFixtureRepo } from "../test/reports/runner-fixture.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

for (const runner of ["node-test", "mocha", "tape", "jest", "vitest"] as const) {
  const repo = await makeFixtureRepo(runner);
  try {
    const base = await checkSeamRedOnBase({
      cwd: repo.dir,
      command: "npm test",
      timeoutMs: 120_000,
      logPath: join(repo.outside, "base.log"),
    });
    if (!base.invocation) throw new Error(`${runner}: ${base.message}`);
    const invocation = base.invocation;
    const slug = join(repo.dir, "src", "slug.js");
    await writeFile(slug, (await readFile(slug, "utf8")).replace(".replace(/ /g,", ".replace(/ +/g,"));
    const files = base.tests.map((k) => (JSON.parse(k) as string[])[0] ?? "").filter((f) => f !== "");
    const seamFiles = files.length > 0 ? files : ["test/slug.test.js"];
    const plain: number[] = [];
    const canaried: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const logPath = join(repo.outside, `run-${i}.log`);
      const t0 = performance.now();
      await runWithReport({
        invocation,
        cwd: repo.dir,
        timeoutMs: 120_000,
        logPath,
        reportPath: reportPathFor(logPath),
      });
      plain.push(performance.now() - t0);
      const t1 = performance.now();
      await withSeamCanary(repo.dir, invocation, seamFiles, (canary) =>
        runWithReport({
          invocation: canary.kind === "placed" ? canary.invocation : invocation,
          cwd: repo.dir,
          timeoutMs: 120_000,
          logPath,
          reportPath: reportPathFor(logPath),
        }),
      );
      canaried.push(performance.now() - t1);
    }
    const p = median(plain);
    const c = median(canaried);
    console.log(
      `${runner.padEnd(9)} seam run ${p.toFixed(0).padStart(5)} ms, with canary ${c.toFixed(0).padStart(5)} ms: +${(c - p).toFixed(0)} ms (${(((c - p) / p) * 100).toFixed(0)} %)`,
    );
  } finally {
    await repo.cleanup();
  }
}
