import type { Command } from "commander";
import { RUNS_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";
import { formatAge, formatBytes, taskRepo } from "../task-repo.js";

interface RunsFlags {
  repo?: string;
  json?: boolean;
}

/** `devflow runs`: every iterate task of the repository, newest first. */
export function registerRuns(program: Command, io: CliIO): void {
  program
    .command("runs")
    .description("list the repository's tasks: verdict or state, branch, age, size on disk")
    .addHelpText("after", RUNS_HELP)
    .option("-r, --repo <path>", "repository (default: the current repo)")
    .option("--json", "one JSON object on stdout")
    .action(async (flags: RunsFlags) => {
      const repoRoot = await taskRepo(flags.repo);
      const { listTaskEntries } = await import("../../lanes/iterate/tasks/inventory.js");
      const { taskEntryJson } = await import("../task-json.js");
      const { listOrphans } = await import("../../lanes/iterate/tasks/orphans.js");
      const entries = await listTaskEntries(repoRoot);
      const orphans = await listOrphans(repoRoot);
      const now = Date.now();
      if (flags.json) {
        io.out(
          `${JSON.stringify({
            repo: repoRoot,
            tasks: entries.map((e) => taskEntryJson(e, now)),
            orphans: orphans.map((o) => ({
              id: o.id,
              branch: o.branchCommit === null ? null : o.branch,
              branch_commit: o.branchCommit,
              checkout: o.checkout,
              bytes: o.bytes,
            })),
          })}\n`,
        );
        return;
      }
      const orphanLines = orphanListing(orphans);
      if (entries.length === 0) {
        io.out(`No devflow tasks in ${repoRoot}.\n${orphanLines}`);
        return;
      }
      const rows = entries.map((e) => [
        e.id,
        e.state,
        e.branchCommit ? `${e.branch} @ ${e.branchCommit.slice(0, 10)}` : `${e.branch} (no branch)`,
        e.updatedAt ? formatAge(now - Date.parse(e.updatedAt)) : "?",
        formatBytes(e.bytes.total),
      ]);
      const header = ["task", "state", "branch", "age", "size"];
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
      const line = (cells: string[]) =>
        cells
          .map((c, i) => (i >= 3 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
          .join("  ")
          .trimEnd();
      io.out(`${[line(header), ...rows.map(line)].join("\n")}\n`);
      const total = entries.reduce((sum, e) => sum + e.bytes.total, 0);
      io.out(
        `\n${entries.length} task(s), ${formatBytes(total)} on disk. devflow show <task> for one; devflow clean --failed | --older-than 7d | --task <id> to remove.\n${orphanLines}`,
      );
    });
}

/** What tasks left after their folder went (ADR 0049): one line each, and how to remove them. */
function orphanListing(
  orphans: Array<{ id: string; branch: string; branchCommit: string | null; checkout: string | null }>,
): string {
  if (orphans.length === 0) return "";
  const lines = orphans.map((o) => {
    const parts = [
      o.branchCommit ? `${o.branch} @ ${o.branchCommit.slice(0, 10)}` : null,
      o.checkout ? `checkout ${o.checkout}` : null,
    ].filter(Boolean);
    return `  ${o.id}  ${parts.join(", ")}`;
  });
  return `\nLeft by tasks that are gone (devflow clean --orphans removes them; git merge takes a branch's result first):\n${lines.join("\n")}\n`;
}
