import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { DEMO_HELP } from "../command-help.js";
import { exitCodeFor } from "../exit-codes.js";
import { finishRun } from "../finish-run.js";
import { humanProgress } from "../human-progress.js";
import type { CliIO } from "../io.js";
import { iterateResultLine, stoppedResultLine, writeLine } from "../json-output.js";
import { jsonProgress } from "../progress.js";
import { StopSignals } from "../signals.js";
import { addOutputOptions, type OutputFlags, outputSettings } from "./output-flags.js";
import { summaryStyle } from "./summary-style.js";

/**
 * The built-in demo: the whole iterate lane on the bundled csv-import sample with a replayed model
 * and a scripted coder whose first attempt is a near miss. Offline, deterministic, real artifacts.
 * The sample repo it makes in a temp dir is removed at the end (issue 11: every demo left one)
 * unless `--keep` or `--dir` asks to look at it afterwards.
 */
export function registerDemo(program: Command, io: CliIO): void {
  addOutputOptions(program.command("demo"))
    .description("run the iterate lane end to end on a bundled sample repo (offline, replayed model)")
    .addHelpText("after", DEMO_HELP)
    .option("--dir <path>", "where to create the sample repo (kept; default: a temp dir, removed at the end)")
    .option("--keep", "keep the temp dir with the sample repo, its branch and artifacts, to look at")
    .option("--json", "one JSON event per line on stdout")
    .option("--plan", "run the plan demo instead: a three-task feature through the compose lane (ADR 0055)")
    .action(async (flags: { dir?: string; keep?: boolean; json?: boolean; plan?: boolean } & OutputFlags) => {
      if (flags.plan) {
        io.setExitCode(await (await import("../demo-plan.js")).runPlanDemo(flags, io));
        return;
      }
      // The lane and the fixtures load here, not at start-up (ADR 0042).
      const { createFixtureRepo } = await import("../../fixtures/create-fixture-repo.js");
      const { DEMO_CASSETTE, DEMO_CODER_SCRIPT, DEMO_FIXTURE, DEMO_REQUEST } = await import(
        "../../fixtures/demo.js"
      );
      const { runIterate } = await import("../../lanes/iterate/run.js");
      const { renderSummary } = await import("../summary.js");
      const output = outputSettings(flags, io);
      const human = flags.json ? null : humanProgress(io, output);
      const say = (text: string) => {
        if (!flags.json && output.verbosity !== "quiet") io.err(text);
      };
      const repo = createFixtureRepo(DEMO_FIXTURE, flags.dir);
      // createFixtureRepo puts the sample in a fresh `devflow-XXXX/` of the temp dir: that is what goes.
      const tempDir = flags.dir ? null : dirname(repo);
      const keep = Boolean(flags.keep) || tempDir === null;
      say(`sample repo: ${repo}\nrequest:     ${DEMO_REQUEST}\n\n`);
      // Ctrl-C / SIGTERM: 130/143, the coder stopped (ADR 0043); the demo is run again, not resumed.
      const stop = new StopSignals(io, {
        abortable: true,
        // --json ends with exactly one result line, also after a stop (ADR 0046).
        onStopped: (code, error, stopped) => {
          if (flags.json) writeLine(io.out, stoppedResultLine("demo", error, code, stopped));
        },
      });
      try {
        const code = await stop.run(async (signal) => {
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
            onProgress: human?.sink ?? jsonProgress(io.out),
            signal,
          }).finally(() => human?.close());
          // Not interactive: a task that needs answers ends needs_more_context, so there is a result.
          if (outcome.kind === "needs_answers") throw new Error("the demo lane paused with questions");
          const { result } = outcome;
          const ending = keep ? await finishRun(result, false) : null;
          const code = exitCodeFor(result.terminal.verdict);
          if (flags.json) writeLine(io.out, iterateResultLine("demo", result, code, ending ?? undefined));
          else io.err(`\n${renderSummary(result, summaryStyle(io, output), ending ?? undefined)}`);
          if (keep) say(`\nThe sample repo is kept: ${repo} (cd there and try the lines above).\n`);
          return code;
        });
        io.setExitCode(code);
      } finally {
        if (!keep && tempDir) {
          rmSync(tempDir, { recursive: true, force: true });
          say(`\nRemoved the sample repo ${tempDir} (devflow demo --keep keeps it to look at).\n`);
        }
      }
    });
}
