import type { Command } from "commander";
import { SHOW_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";
import { formatAge, formatBytes, taskRepo } from "../task-repo.js";

interface ShowFlags {
  repo?: string;
  json?: boolean;
}

const MARK: Record<string, string> = { pass: "✓", fail: "✗", skipped: "–", error: "✗" };

/** `devflow show <task>`: what one task was asked, decided and left, and how to take its result. */
export function registerShow(program: Command, io: CliIO): void {
  program
    .command("show")
    .description("one task: request, verdict and reason, attempts and their checks, branch, files")
    .argument("<task>", "task id (devflow runs lists them)")
    .addHelpText("after", SHOW_HELP)
    .option("-r, --repo <path>", "repository (default: the current repo)")
    .option("--json", "one JSON object on stdout")
    .action(async (taskId: string, flags: ShowFlags) => {
      const repoRoot = await taskRepo(flags.repo);
      const { readTaskDetails } = await import("../../lanes/iterate/tasks/details.js");
      const { resumeCommandFor, taskDetailsJson, takeResultFor } = await import("../task-json.js");
      // Its owner is the lane's tasks module: loaded here, not at start-up (ADR 0042).
      const { takeResultLines } = await import("../take-result.js");
      const { isTaskId } = await import("../../home/index.js");
      const { DevflowError } = await import("../../errors/index.js");
      if (!isTaskId(taskId))
        throw new DevflowError("TASK_ID_INVALID", `"${taskId}" is not a task id; devflow runs lists them`);
      const d = await readTaskDetails(repoRoot, taskId);
      const now = Date.now();
      if (flags.json) {
        io.out(`${JSON.stringify(taskDetailsJson(d, repoRoot, now))}\n`);
        return;
      }
      const row = (k: string, v: string) => `${k.padEnd(10)}${v}`;
      const lines = [row("task", `${d.id}${d.title ? `: ${d.title}` : ""}`)];
      if (d.request) lines.push(row("request", d.request));
      lines.push(row(d.finished ? "verdict" : "state", `${d.state}${d.reason ? `: ${d.reason}` : ""}`));
      const resume = resumeCommandFor(d, repoRoot);
      if (resume) lines.push(row("", `continue it: ${resume}`));
      lines.push(
        row(
          "branch",
          d.branchCommit ? `${d.branch} @ ${d.branchCommit.slice(0, 10)}` : `${d.branch} (deleted)`,
        ),
      );
      if (d.baseCommit) lines.push(row("base", d.baseCommit.slice(0, 10)));
      if (d.updatedAt)
        lines.push(row("age", `${formatAge(now - Date.parse(d.updatedAt))} since its last step`));
      for (const a of d.attempts) {
        const checks = a.checks.map((c) => `${c.verifier} ${MARK[c.result] ?? c.result}`).join(" ");
        lines.push(`  ${a.id}  ${a.verdict}  coder ${a.coderStatus}  ${checks}`, `    ${a.summary}`);
        if (a.transcript) lines.push(`    transcript ${a.transcript}`);
      }
      if (d.questions.length) lines.push("questions", ...d.questions.map((q) => `  - ${q}`));
      lines.push(
        row("artifacts", `${d.paths.artifacts} (${formatBytes(d.bytes.artifacts)})`),
        row("record", d.files.runRecord),
        row("events", d.files.events),
        row(
          "worktree",
          d.bytes.worktree > 0 ? `${d.paths.worktree} (${formatBytes(d.bytes.worktree)})` : "removed",
        ),
        row("verify", d.bytes.verify > 0 ? `${d.paths.verify} (${formatBytes(d.bytes.verify)})` : "removed"),
      );
      const take = takeResultFor(d);
      if (take) lines.push(...takeResultLines(take));
      io.out(`${lines.join("\n")}\n`);
    });
}
