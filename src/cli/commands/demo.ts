import type { Command } from "commander";
import { exitCodeFor } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { humanProgress, jsonProgress } from "../progress.js";

/**
 * The built-in demo: the whole iterate lane on the bundled csv-import sample with a replayed model
 * and a scripted coder whose first attempt is a near miss. Offline, deterministic, real artifacts.
 */
export function registerDemo(program: Command, io: CliIO): void {
  program
    .command("demo")
    .description("run the iterate lane end to end on a bundled sample repo (offline, replayed model)")
    .option("--dir <path>", "where to create the sample repo (default: a new temp dir)")
    .option("--json", "one JSON event per line on stdout")
    .action(async (flags: { dir?: string; json?: boolean }) => {
      // The lane and the fixtures load here, not at start-up (ADR 0042).
      const { createFixtureRepo } = await import("../../fixtures/create-fixture-repo.js");
      const { DEMO_CASSETTE, DEMO_CODER_SCRIPT, DEMO_FIXTURE, DEMO_REQUEST } = await import(
        "../../fixtures/demo.js"
      );
      const { runIterate } = await import("../../lanes/iterate/run.js");
      const { renderSummary } = await import("../summary.js");
      const repo = createFixtureRepo(DEMO_FIXTURE, flags.dir);
      io.err(`sample repo: ${repo}\nrequest:     ${DEMO_REQUEST}\n\n`);
      const outcome = await runIterate({
        request: DEMO_REQUEST,
        repo,
        baseDir: ".",
        resume: false,
        model: "gpt-4.1-mini",
        coder: `command:node ${JSON.stringify(DEMO_CODER_SCRIPT)}`,
        mode: "replay",
        cassettePath: DEMO_CASSETTE,
        lane: { maxJudgeAttempts: 3, baseTimeoutMs: 60_000, commandTimeoutMs: 60_000 },
        onProgress: flags.json ? jsonProgress(io.out) : humanProgress(io.err),
      });
      // Not interactive: a task that needs answers ends needs_more_context, so there is a result.
      if (outcome.kind === "needs_answers") throw new Error("the demo lane paused with questions");
      const { result } = outcome;
      if (flags.json) io.out(`${JSON.stringify({ type: "result", ...result })}\n`);
      else io.err(`\n${renderSummary(result)}`);
      io.setExitCode(exitCodeFor(result.terminal.verdict));
    });
}
