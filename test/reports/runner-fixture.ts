import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { deliverReport, openReportChannel } from "../../src/verify/report-channel.js";
import { detectRunner } from "../../src/verify/test-reports/detect-runner.js";
import { readPackageTestSetup } from "../../src/verify/test-reports/package-setup.js";
import { readReportFile, removeStaleReport } from "../../src/verify/test-reports/read-report.js";
import type { ReportRequest, RunnerAdapter } from "../../src/verify/test-reports/runner-adapter.js";
import type { TestReport } from "../../src/verify/test-reports/test-report.js";
import { makeTempRepo, type TempRepo } from "../support/temp-git-repo.js";

/** Pinned runner versions that support Node 20; node:test needs no install. */
export const RUNNER_PACKAGES = {
  mocha: "mocha@10.8.2",
  jest: "jest@29.7.0",
  vitest: "vitest@4.1.12",
  tape: "tape@5.10.2",
} as const;

export type FixtureRunner = keyof typeof RUNNER_PACKAGES | "node-test";

const FIXTURES = fileURLToPath(new URL("../fixtures/runners/", import.meta.url));
const CACHE = join(tmpdir(), "devflow-runner-cache");

/**
 * Installs a runner from npm once per machine into a cache outside any repo. Installs into a
 * temp dir and renames it into place, so an interrupted install never looks complete.
 */
export function ensureRunnerInstalled(runner: keyof typeof RUNNER_PACKAGES): Promise<string> {
  // One install per process: concurrent tests of one file share it.
  let pending = installing.get(runner);
  if (!pending) {
    pending = installRunner(runner);
    installing.set(runner, pending);
    pending.catch(() => installing.delete(runner));
  }
  return pending;
}
const installing = new Map<string, Promise<string>>();

/**
 * Installs into a staging folder and renames it into place. A complete copy already in place (another
 * test process won the race) is never removed: stop 32 saw `ENOTEMPTY` when a second process
 * removed the first one's fresh copy while tests ran from it. Only a partial leftover is replaced.
 */
async function installRunner(runner: keyof typeof RUNNER_PACKAGES): Promise<string> {
  const spec = RUNNER_PACKAGES[runner];
  const dir = join(CACHE, spec);
  const modules = join(dir, "node_modules");
  if (existsSync(join(dir, ".complete"))) return withoutSharedResultsCache(runner, modules);
  await mkdir(CACHE, { recursive: true });
  const staging = await mkdtemp(join(CACHE, `${spec}.staging-`));
  await writeFile(join(staging, "package.json"), JSON.stringify({ name: "runner-cache", private: true }));
  await execa("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--save-exact", spec], {
    cwd: staging,
  });
  await withoutSharedResultsCache(runner, join(staging, "node_modules"));
  await writeFile(join(staging, ".complete"), spec);
  for (let tries = 0; ; tries++) {
    try {
      await rename(staging, dir);
      return modules;
    } catch (error) {
      if (existsSync(join(dir, ".complete"))) {
        await rm(staging, { recursive: true, force: true });
        return withoutSharedResultsCache(runner, modules);
      }
      if (tries > 0) throw error;
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * Vitest keeps a results cache at `<root>/node_modules/.vite/vitest/<sha1 of the project name>/results.json`.
 * Every fixture repo links the one cached `node_modules`, so every vitest run on this machine read
 * and rewrote one shared file. Stop 47's CI: a lane test's seam read that file, a fixture-level test
 * in another file rewrote it while the task ran, and devflow rightly ended the task `exhausted` (a
 * file its seam read outside the checkout changed). Fix: that path is a directory in the cache, so
 * vitest's read and write of it fail; vitest catches both and runs with no results cache (its
 * cache only orders test files). Returns `modules`.
 */
async function withoutSharedResultsCache(
  runner: keyof typeof RUNNER_PACKAGES,
  modules: string,
): Promise<string> {
  if (runner !== "vitest") return modules;
  const unnamedProject = createHash("sha1").update("").digest("hex");
  const results = join(modules, ".vite", "vitest", unnamedProject, "results.json");
  for (let tries = 0; ; tries++) {
    try {
      if ((await stat(results)).isDirectory()) return modules;
    } catch {
      // not there yet
    }
    // An older cache holds a results file (or a run writes one right now): replace it by the directory.
    await rm(results, { force: true });
    try {
      await mkdir(results, { recursive: true });
      return modules;
    } catch (error) {
      if (tries > 2) throw error;
    }
  }
}

/**
 * Runs `run` as devflow's runWithReport runs a report request: with devflow's report channel open
 * when the request asks for it, its environment (the request's and the channel's) handed to `run`,
 * and the channel's report delivered to the request's path afterwards. Throws when the channel
 * refused the report.
 */
export async function withReportChannel<T>(
  request: Extract<ReportRequest, { kind: "report_file" }>,
  run: (env: Readonly<Record<string, string>>) => Promise<T>,
): Promise<T> {
  const channel = request.via === "channel" ? await openReportChannel(request.runner) : null;
  const result = await run({ ...request.env, ...channel?.env });
  const refused = channel ? await deliverReport(channel, request.reportPath) : null;
  if (refused) throw new Error(`${request.runner}'s report: ${refused}`);
  return result;
}

export interface FixtureRepo extends TempRepo {
  write(path: string, content: string): Promise<void>;
  /** Runs the package's test script through the adapter, with the report written outside the repo. */
  runWithReport(): Promise<{ report: TestReport; exitCode: number | undefined; command: string }>;
  adapter: RunnerAdapter;
}

/** Copies test/fixtures/runners/<runner> into a temp git repo with the cached runner linked in. */
export async function makeFixtureRepo(runner: FixtureRunner): Promise<FixtureRepo> {
  const source = join(FIXTURES, runner);
  const files: Record<string, string> = {};
  for (const path of await listFiles(source)) files[relative(source, path)] = await readFile(path, "utf8");
  const repo = await makeTempRepo(files);
  if (runner !== "node-test")
    await symlink(await ensureRunnerInstalled(runner), join(repo.dir, "node_modules"));
  const setup = readPackageTestSetup(files["package.json"] ?? "");
  const detection = detectRunner(setup);
  if (detection.kind !== "detected") throw new Error(`fixture ${runner}: ${detection.reason}`);
  let run = 0;
  return {
    ...repo,
    adapter: detection.adapter,
    write: (path, content) => writeFile(join(repo.dir, path), content),
    async runWithReport() {
      run += 1;
      const reportPath = join(repo.outside, `report-${run}`);
      const request = detection.adapter.command(detection.script, reportPath);
      if (request.kind !== "report_file") throw new Error(`fixture ${runner}: ${request.reason}`);
      await removeStaleReport(reportPath);
      // A clean environment: this test's own vitest variables must not leak into a nested vitest.
      const result = await withReportChannel(request, (env) =>
        execa("sh", ["-c", request.command], {
          cwd: repo.dir,
          reject: false,
          extendEnv: false,
          env: {
            PATH: `${join(repo.dir, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
            HOME: process.env.HOME ?? repo.outside,
            TMPDIR: tmpdir(),
            CI: "1",
            NO_COLOR: "1",
            FORCE_COLOR: "0",
            ...env,
          },
          timeout: 120_000,
        }),
      );
      const report = await readReportFile(detection.adapter, reportPath, repo.dir);
      return { report, exitCode: result.exitCode, command: request.command };
    },
  };
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else out.push(path);
  }
  return out;
}
