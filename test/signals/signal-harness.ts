import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DevflowEvent } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { openTaskStore } from "../../src/home/index.js";
import { SIGNAL_TEST_LAUNCHER, startDevflow, waitForFile } from "../support/devflow-process.js";
import { coderScript, DEMO_REQUEST, demoCassette, tempDir, writeCassette } from "../support/lane-harness.js";

/** How long the slow coder works before it applies the fix (when nothing stops it). */
export const SLOW_CODER_MS = 8000;

/** Every ref of a repository with the commit it points at: "no branch moved" is this, unchanged. */
export function refs(repo: string): string {
  return execFileSync("git", ["for-each-ref", "--format=%(refname) %(objectname)"], {
    cwd: repo,
    encoding: "utf8",
  });
}

/**
 * Host pids of live (non-zombie) processes with `script` as one argument (the coder, `node <script>`;
 * not devflow, whose `--coder command:node "<script>"` only contains it).
 */
export function processesRunning(script: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (/^Z|^X/.test(stat.slice(stat.lastIndexOf(")") + 2))) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(script))
        pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A real `devflow iterate` (one node process, see SIGNAL_TEST_LAUNCHER) on the csv-import sample
 * with the demo cassette and a coder that signals when it starts, then works SLOW_CODER_MS before
 * it applies the right fix; when it runs again (the resumed attempt) it fixes at once.
 */
export async function slowCoderRun(taskId: string, coderPrelude = "") {
  const repo = createFixtureRepo("csv-import");
  const marks = tempDir("devflow-signal-");
  const ready = join(marks, "coder-running");
  const coder = coderScript(`
    import * as fs from "node:fs";
    ${coderPrelude}
    if (!fs.existsSync(${JSON.stringify(ready)})) {
      fs.writeFileSync(${JSON.stringify(ready)}, String(Date.now()));
      await new Promise((r) => setTimeout(r, ${SLOW_CODER_MS}));
    }
    const f = "src/csv-import.js";
    fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trim()))"));
    console.log("Trimmed the email before validating it.");
  `);
  const script = JSON.parse(coder.slice("command:node ".length)) as string;
  const args = [
    "iterate",
    DEMO_REQUEST,
    "--repo",
    repo,
    "--task-id",
    taskId,
    "--replay",
    writeCassette(demoCassette()),
    "--coder",
    coder,
    "--no-input",
  ];
  const run = startDevflow(args, {}, { launcher: SIGNAL_TEST_LAUNCHER });
  await waitForFile(ready, 120_000);
  const store = openTaskStore(repo, taskId);
  return {
    taskId,
    repo,
    run,
    args,
    store,
    coderScript: script,
    coderStartedAt: Number(readFileSync(ready, "utf8")),
    events: () => store.readJsonl("events.jsonl", DevflowEvent),
  };
}
