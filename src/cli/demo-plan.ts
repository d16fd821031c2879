import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { createFixtureRepo } from "../fixtures/create-fixture-repo.js";
import {
  PLAN_DEMO_CASSETTES,
  PLAN_DEMO_CODER_SCRIPT,
  PLAN_DEMO_FIXTURE,
  PLAN_DEMO_REQUEST,
} from "../fixtures/plan-demo.js";
import type { OutputFlags } from "./commands/output-flags.js";
import type { CliIO } from "./io.js";
import { runPlanCommand } from "./plan-run.js";

/**
 * `devflow demo --plan` (`npm run demo:plan`, ADR 0055): the compose lane end to end, offline: the
 * plan of a three-task feature on the bundled csv-import sample is replayed, approved, and run task
 * by task with a scripted coder (the second task needs a repair) to a verified `devflow/plan-<id>`.
 * The temp sample repo is removed at the end unless `--keep` or `--dir` asks to keep it.
 */
export async function runPlanDemo(
  flags: { dir?: string; keep?: boolean } & OutputFlags,
  io: CliIO,
): Promise<number> {
  const repo = createFixtureRepo(PLAN_DEMO_FIXTURE, flags.dir);
  const tempDir = flags.dir ? null : dirname(repo);
  const keep = Boolean(flags.keep) || tempDir === null;
  io.err(`sample repo: ${repo}\nrequest:     ${PLAN_DEMO_REQUEST}\n`);
  try {
    return await runPlanCommand({
      request: PLAN_DEMO_REQUEST,
      repo,
      model: "gpt-4.1-mini",
      coder: `command:node ${JSON.stringify(PLAN_DEMO_CODER_SCRIPT)}`,
      replay: PLAN_DEMO_CASSETTES,
      yes: true,
      output: flags,
      io,
      lane: { baseTimeoutMs: 60_000, commandTimeoutMs: 60_000 },
    });
  } finally {
    if (keep) io.err(`\nThe sample repo is kept: ${repo} (git log devflow/plan-… there).\n`);
    else if (tempDir) {
      rmSync(tempDir, { recursive: true, force: true });
      io.err(`\nRemoved the sample repo ${tempDir} (devflow demo --plan --keep keeps it to look at).\n`);
    }
  }
}
