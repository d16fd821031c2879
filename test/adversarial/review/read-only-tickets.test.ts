/**
 * Hostile review (session 16) of read-only tickets (ADR 0057), attacked as a ticket author would:
 * the repository an audit names is the author's, and "read-only" must mean that reading it runs
 * nothing of theirs.
 *
 * audit-of-a-repository-whose-git-config-runs-an-fsmonitor-command: the repository's own
 * `.git/config` sets `core.fsmonitor` to a script. The insight agent's `list_files` and `search`
 * tools listed files with a bare `git ls-files` (src/tools/tracked-files.ts) that read that config,
 * so git ran the script, in the daemon's own process tree, outside any namespace: a read-only
 * ticket ran a command of the repository's choosing (the same hole let a builtin coder that wrote
 * its checkout's `.git/config` through `run_command` get a command run by devflow's process).
 * Fix: the tools list files through src/workspace (`listGitFiles`), whose git runs with
 * `core.fsmonitor=false`, `core.hooksPath=/dev/null` and no global config, like all of devflow's
 * own git (ADR 0020, 0037).
 *
 *     npx vitest run test/adversarial/review/read-only-tickets.test.ts
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DaemonConfig } from "../../../src/artifacts/schemas/ticket.js";
import { FsTicketQueue } from "../../../src/daemon/fs-queue.js";
import { ticketRunner } from "../../../src/daemon/ticket-runner.js";
import { Worker } from "../../../src/daemon/worker.js";
import { createFixtureRepo } from "../../../src/fixtures/create-fixture-repo.js";
import type { CassetteEntry } from "../../../src/models/cassette.js";
import { stopReason } from "../../../src/process/stop-signal.js";
import { cassetteWith } from "../../chat/support/intake-fixtures.js";
import { queueFiles, readResult, waitFor } from "../../daemon/daemon-harness.js";
import { type QueueSandbox, queueSandbox } from "../../daemon/queue-harness.js";
import { tempDir } from "../../support/lane-harness.js";

let box: QueueSandbox;
beforeEach(() => {
  box = queueSandbox();
});
afterEach(() => box.cleanup());

const config = DaemonConfig.parse({ worker: { pollIntervalSeconds: 0.05, recoverIntervalSeconds: 60 } });

/** The model looks around with both listing tools, then answers. */
const LOOK_THEN_ANSWER: CassetteEntry[] = [
  {
    content: "",
    tool_calls: [
      { name: "list_files", args: {} },
      { name: "search", args: { pattern: "EMAIL" } },
    ],
  },
  {
    structured: {
      answer: "Rows are validated in src/csv-import.js.",
      references: [{ path: "src/csv-import.js", line: 1 }],
    },
  },
];

async function runOneTicket(frontmatter: string, body: string): Promise<string> {
  const queue = new FsTicketQueue(box.root, config);
  const path = box.ticket("audit.md", frontmatter, body);
  const submitted = await queue.submit(path, readFileSync(path));
  expect(submitted.findings).toEqual([]);
  const runner = ticketRunner(box.root, {
    model: "gpt-4.1-mini",
    coder: "builtin",
    mode: "replay",
    cassettePath: cassetteWith({ insight: LOOK_THEN_ANSWER }),
    lane: {},
  });
  const worker = new Worker({ root: box.root, queue, config, runner, log: () => {} });
  const running = worker.run();
  await waitFor(
    "the ticket to end",
    () => queueFiles(box, "done").length + queueFiles(box, "failed").length === 1,
    120_000,
  );
  worker.stop(stopReason("SIGTERM", null));
  await running;
  return submitted.id;
}

describe("a read-only ticket runs nothing of the repository's", () => {
  it("audit-of-a-repository-whose-git-config-runs-an-fsmonitor-command: the command never runs", async () => {
    const repo = createFixtureRepo("csv-import");
    const marker = join(tempDir("devflow-review-fsmonitor-"), "ran");
    const hook = join(tempDir("devflow-review-fsmonitor-hook-"), "fsmonitor.sh");
    writeFileSync(hook, `#!/bin/sh\necho "$@" >> ${JSON.stringify(marker)}\nexit 1\n`);
    chmodSync(hook, 0o755);
    execFileSync("git", ["-C", repo, "config", "core.fsmonitor", hook]);
    // The hook works: plain git in the repository runs it (so its absence below means something).
    execFileSync("git", ["-C", repo, "ls-files"], { stdio: "ignore" });
    expect(existsSync(marker), "git runs the repository's fsmonitor").toBe(true);
    execFileSync("rm", ["-f", marker]);

    const id = await runOneTicket(`repo: ${JSON.stringify(repo)}\naudit:\n  focus: validation`, "Look.\n");
    const result = readResult(box, id);
    expect(result).toMatchObject({ kind: "audit", status: "completed", verdict: "answered" });
    const answer = JSON.parse(readFileSync(result.answer as string, "utf8"));
    expect(answer.tool_calls).toBe(2);
    expect(existsSync(marker), "the repository's fsmonitor command ran during a read-only ticket").toBe(
      false,
    );
  }, 120_000);
});
