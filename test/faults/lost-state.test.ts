import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { statePath, taskDir } from "../../src/home/index.js";
import { cli } from "../support/cli.js";
import { DEMO_REQUEST, demoCassette, TASK_ID, writeCassette } from "../support/lane-harness.js";
import { useLoopbackEndpoints } from "./loopback-endpoints.js";

/**
 * Lost or corrupt `.devflow/state.sqlite` (issue 10, item 6).
 *
 * Regression "resume with state.sqlite gone restarts the lane with an empty request": the graph
 * found no checkpoint, so `--resume` fed it a fresh input with the empty request, spent a Framer
 * call and failed on a schema error. Fix: run.ts refuses a resume with no checkpoint and no
 * verdict (lost-checkpoint.ts), naming the command that starts the stored request again, before
 * any model call.
 *
 * Regression "garbage state.sqlite says 'file is not a database' with no path and no remedy":
 * SQLite's error surfaced from the first node. Fix: openCheckpointer (src/home/checkpointer.ts)
 * reads the schema version once and reports the path and the `mv` that moves it aside.
 */

const { liveEndpoint } = useLoopbackEndpoints();

/** A task stopped after framing: the cassette has the Framer's answer and nothing for the Observer. */
async function unfinishedTask(): Promise<string> {
  const repo = createFixtureRepo("csv-import");
  const cassette = demoCassette();
  cassette.calls = { framer: cassette.calls.framer ?? [] };
  const first = await cli(
    "iterate",
    DEMO_REQUEST,
    "--task-id",
    TASK_ID,
    "-r",
    repo,
    "--coder",
    "command:true",
    "--no-input",
    "--replay",
    writeCassette(cassette),
  );
  expect(first.code, first.err).toBe(1);
  expect(first.err).toMatch(/has no answer for role observer/);
  return repo;
}

/**
 * `--resume` of the unfinished task, which must be refused (exit 2) with one line and no model call
 * (with no cassette, any call would reach the loopback endpoint): that line.
 */
async function refusedResume(repo: string): Promise<string> {
  const server = await liveEndpoint();
  const resumed = await cli(
    "iterate",
    "--resume",
    "--task-id",
    TASK_ID,
    "-r",
    repo,
    "--coder",
    "command:true",
    "--no-input",
  );
  expect(server.requests).toHaveLength(0);
  expect(resumed.code, resumed.err).toBe(2);
  const lines = resumed.err.trim().split("\n");
  expect(lines, resumed.err).toHaveLength(1);
  return lines[0] ?? "";
}

/** SQLite's side files, so the main file alone is what the next process opens. */
function removeWriteAheadLog(repo: string): void {
  rmSync(`${statePath(repo)}-wal`, { force: true });
  rmSync(`${statePath(repo)}-shm`, { force: true });
}

const iterateFlags = (() => {
  const program = buildProgram({ out: () => {}, err: () => {}, isTTY: false, setExitCode: () => {} });
  const iterate = program.commands.find((c) => c.name() === "iterate");
  return new Set(iterate?.options.flatMap((o) => (o.long === undefined ? [] : [o.long])) ?? []);
})();

describe("lost or corrupt state.sqlite", () => {
  it("resume with state.sqlite gone restarts the lane with an empty request (regression): refused with the restart command, 0 model calls", async () => {
    const repo = await unfinishedTask();
    rmSync(statePath(repo), { force: true });
    removeWriteAheadLog(repo);
    const lines = [await refusedResume(repo)];
    expect(lines[0]).toContain(`task "${TASK_ID}" has no checkpoint in ${statePath(repo)}`);
    expect(lines[0]).toContain(`its artifacts in ${taskDir(repo, TASK_ID)} are kept`);
    // The remedy is a command that exists, for the stored request, under a task id that is free.
    const remedy = `devflow iterate --repo ${repo} --task-id ${TASK_ID}-2 `;
    expect(lines[0]).toContain(remedy);
    // A shell turns the quoted request back into exactly the stored one.
    const quoted = lines[0]?.slice((lines[0]?.indexOf(remedy) ?? 0) + remedy.length) ?? "";
    expect(execFileSync("bash", ["-c", `printf %s ${quoted}`], { encoding: "utf8" })).toBe(
      DEMO_REQUEST.trim(),
    );
    for (const flag of lines[0]?.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [])
      expect(iterateFlags).toContain(flag);
  });

  it("garbage state.sqlite says 'file is not a database' with no path and no remedy (regression)", async () => {
    const repo = await unfinishedTask();
    removeWriteAheadLog(repo);
    writeFileSync(statePath(repo), "this is not a database, it is garbage ".repeat(200));
    const lines = [await refusedResume(repo)];
    expect(lines[0]).toContain(`${statePath(repo)} is not a readable SQLite database (SQLITE_NOTADB)`);
    expect(lines[0]).toContain(`mv ${statePath(repo)} ${statePath(repo)}.corrupt`);

    // The fix works: with the file moved aside, the same resume gets the lost-checkpoint remedy.
    rmSync(statePath(repo));
    expect(await refusedResume(repo)).toMatch(/has no checkpoint in/);
  });
});
