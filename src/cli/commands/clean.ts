import { relative } from "node:path";
import type { Command } from "commander";
import { CLEAN_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";
import { formatAge, formatBytes, taskRepo } from "../task-repo.js";

interface CleanFlags {
  repo?: string;
  task?: string;
  olderThan?: string;
  failed?: boolean;
  orphans?: boolean;
  idle?: boolean;
  clones?: string;
  branches?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** `devflow clean`: removes what finished tasks left (never a live one's, never the user's checkout). */
export function registerClean(program: Command, io: CliIO): void {
  program
    .command("clean")
    .description(
      "remove finished tasks' checkouts, verification checkouts, artifacts and scratch dirs (never a running task's)",
    )
    .addHelpText("after", CLEAN_HELP)
    .option("-r, --repo <path>", "repository (default: the current repo)")
    .option(
      "--task <id>",
      "this task only, with its idle coder checkout (with --branches, its branch too, even a completed one's)",
    )
    .option("--older-than <duration>", "tasks idle for longer than this (7d, 12h, 30m)")
    .option("--failed", "tasks that did not complete: blocked, exhausted, needs_more_context, interrupted")
    .option(
      "--orphans",
      "devflow/<id> branches and coder checkouts whose task is gone (devflow runs lists them; a branch may hold an unmerged result)",
    )
    .option(
      "--idle",
      "finished tasks' coder checkouts kept idle for reuse (.devflow/worktrees/.idle/) instead of tasks; with --older-than, those retired longer ago",
    )
    .option(
      "--clones <base-dir>",
      "URL tasks' clones in <base-dir> (iterate -r <url> -b <base-dir>) instead of -r's tasks; a completed one only with --task",
    )
    .option("--branches", "also delete their devflow/<id> branches (a completed task's only with --task)")
    .option("--dry-run", "say what would be removed, remove nothing")
    .option("--json", "one JSON object on stdout")
    .action(async (flags: CleanFlags) => {
      const { DevflowError } = await import("../../errors/index.js");
      if (
        flags.task !== undefined &&
        (flags.olderThan !== undefined || flags.failed || flags.orphans || flags.idle)
      )
        throw new DevflowError(
          "BAD_OPTION",
          "--task names one task: use it without --older-than, --failed, --orphans or --idle",
        );
      if (flags.idle && (flags.failed || flags.clones !== undefined))
        throw new DevflowError(
          "BAD_OPTION",
          "--idle takes idle coder checkouts of this repository: use it without --failed or --clones",
        );
      if (flags.clones !== undefined) {
        const { cleanUrlClones } = await import("../../lanes/iterate/tasks/url-clones.js");
        if (flags.task === undefined && flags.olderThan === undefined && !flags.failed)
          throw new DevflowError(
            "BAD_OPTION",
            "say which clones: --task <id>, --older-than <duration> (e.g. 7d) or --failed",
          );
        const done = await cleanUrlClones(flags.clones, {
          ...(flags.task === undefined ? {} : { taskId: flags.task }),
          ...(flags.olderThan === undefined ? {} : { olderThanMs: await olderThanMs(flags.olderThan) }),
          failed: Boolean(flags.failed),
          dryRun: Boolean(flags.dryRun),
        });
        const verb = flags.dryRun ? "would remove" : "removed";
        const lines = [
          ...done.removed.map((c) => `${verb} clone ${c.dir} (${c.id}, ${c.state}), ${formatBytes(c.bytes)}`),
          ...done.kept.map((c) => `kept clone ${c.dir} (${c.id}, ${c.state}): ${c.why}`),
        ];
        io.out(`${(lines.length ? lines : ["No URL task clones to clean."]).join("\n")}\n`);
        return;
      }
      const repoRoot = await taskRepo(flags.repo);
      const { cleanTasks } = await import("../../lanes/iterate/tasks/clean.js");
      const report = await cleanTasks(repoRoot, {
        ...(flags.task === undefined ? {} : { taskId: flags.task }),
        ...(flags.olderThan === undefined ? {} : { olderThanMs: await olderThanMs(flags.olderThan) }),
        failed: Boolean(flags.failed),
        orphans: Boolean(flags.orphans),
        idle: Boolean(flags.idle),
        branches: Boolean(flags.branches),
        dryRun: Boolean(flags.dryRun),
      });
      if (flags.json) {
        io.out(
          `${JSON.stringify({
            repo: repoRoot,
            dry_run: report.dryRun,
            cleaned: report.cleaned.map((c) => ({ ...c, freed_bytes: c.bytes, bytes: undefined })),
            skipped: report.skipped,
            scratch_dirs: report.scratchDirs,
            abandoned_claims: report.abandonedClaims,
            orphans: report.orphans.map((o) => ({
              id: o.id,
              branch: o.branch,
              checkout: o.checkout,
              freed_bytes: o.bytes,
            })),
            idle_checkouts: report.idle.map(idleJson),
            idle_checkouts_kept: report.idleKept.map(idleJson),
            freed_bytes: report.freedBytes,
          })}\n`,
        );
        return;
      }
      const verb = report.dryRun ? "would remove" : "removed";
      const lines: string[] = [];
      for (const c of report.cleaned) {
        const paths = c.removed.map((p) => relative(repoRoot, p)).join(", ") || "nothing on disk";
        const branch =
          c.branch.action === "deleted"
            ? `branch ${c.branch.name} ${report.dryRun ? "would be " : ""}deleted`
            : c.branch.action === "kept"
              ? `branch ${c.branch.name} kept (${c.branch.why})`
              : "no branch";
        lines.push(`${verb} ${c.id} (${c.state}): ${paths}, ${formatBytes(c.bytes)}; ${branch}`);
      }
      for (const s of report.skipped) lines.push(`skipped ${s.id} (${s.state}): ${s.why}`);
      for (const o of report.orphans) {
        const parts = [
          o.checkout ? `checkout ${relative(repoRoot, o.checkout)}` : null,
          o.branch.action === "deleted"
            ? `branch ${o.branch.name}`
            : o.branch.action === "kept"
              ? `(branch ${o.branch.name} kept: ${o.branch.why})`
              : null,
        ].filter(Boolean);
        lines.push(`${verb} orphan ${o.id}: ${parts.join(", ")}`);
      }
      const now = Date.now();
      for (const i of report.idle)
        lines.push(
          `${verb} idle checkout ${relative(repoRoot, i.path)} (${i.id}), ${formatBytes(i.bytes)}, ${idleFor(now, i.retiredAt)}`,
        );
      // Listed when asked for (--idle): with --older-than alone they are no news.
      if (flags.idle)
        for (const i of report.idleKept)
          lines.push(
            `kept idle checkout ${relative(repoRoot, i.path)} (${i.id}), ${formatBytes(i.bytes)}, ${idleFor(now, i.retiredAt)}: younger than --older-than`,
          );
      if (report.scratchDirs.length)
        lines.push(
          `${verb} ${report.scratchDirs.length} scratch dir(s) of dead runs: ${report.scratchDirs.join(", ")}`,
        );
      if (report.abandonedClaims.length)
        lines.push(
          `${verb} ${report.abandonedClaims.length} idle checkout(s) a killed clean left half-removed: ${report.abandonedClaims.map((p) => relative(repoRoot, p)).join(", ")}`,
        );
      if (lines.length === 0) lines.push("Nothing to clean.");
      lines.push(`${report.dryRun ? "would free" : "freed"} ${formatBytes(report.freedBytes)}`);
      io.out(`${lines.join("\n")}\n`);
    });
}

/** How long a checkout has been idle; without its `<id>.index` (retiredAt 0) that is unknown, not since 1970. */
function idleFor(now: number, retiredAt: number): string {
  return retiredAt === 0
    ? "idle since unknown (no index: never reused)"
    : `idle ${formatAge(now - retiredAt)}`;
}

function idleJson(i: { id: string; path: string; bytes: number; retiredAt: number }) {
  const retiredAt = i.retiredAt === 0 ? null : new Date(i.retiredAt).toISOString();
  return { id: i.id, path: i.path, bytes: i.bytes, retired_at: retiredAt };
}

/** `--older-than 7d`: a duration with a unit (parse-duration reads a bare number as milliseconds). */
async function olderThanMs(value: string): Promise<number> {
  const { default: parseDuration } = await import("parse-duration");
  const ms = /[a-z]/i.test(value) ? parseDuration(value) : null;
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) {
    const { DevflowError } = await import("../../errors/index.js");
    throw new DevflowError(
      "BAD_OPTION",
      `--older-than "${value}" is not a duration: use a number with a unit, e.g. 7d, 12h, 30m`,
    );
  }
  return ms;
}
