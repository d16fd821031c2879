import { cpSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TicketRecord, TicketResult } from "../../src/artifacts/schemas/ticket.js";
import { startDevflow } from "../support/devflow-process.js";
import { CORRECT_FIX, coderScript, demoCassette, writeCassette } from "../support/lane-harness.js";
import {
  checkBranch,
  queueFiles,
  readResult,
  revisions,
  submitChangeTicket,
  waitFor,
  writeWorkerConfig,
} from "./daemon-harness.js";
import { type QueueSandbox, queueSandbox } from "./queue-harness.js";

/**
 * Issue 12's race test with real daemons: two `devflow daemon` processes (the compiled CLI) work
 * one inbox of a couple of hundred tickets. One data root admits one daemon (its lock), so the
 * second daemon has a data root of its own whose `queue/` and `data/` are the first one's (symlinks:
 * one queue shared by two hosts, as the queue interface allows), while its lock, logs and cache are
 * its own. Most tickets are cheap (an audit of a `file://` URL to nothing ends `error`,
 * CLONE_FAILED, after one local `git clone` and no model call), a few are change tickets on real fixture repositories with a fast `command:` coder, so
 * both the claim and the whole change path (lease, heartbeat, finalize, commit) race.
 * Each claim is read from the daemon's own log: no ticket is claimed by both, none twice, every one
 * ends exactly once (one terminal record, one move out of processing/).
 */
let box: QueueSandbox;
beforeEach(() => {
  box = queueSandbox();
});
afterEach(() => box.cleanup());

const CHEAP = 200;
const CHANGES = 4;

function claimsIn(stderr: string): string[] {
  return [...stderr.matchAll(/^devflow daemon: claimed (\S+)$/gm)].map((m) => m[1] as string);
}

describe("two devflow daemons racing on one inbox", () => {
  it("never claim the same ticket, and each ticket finishes exactly once", async () => {
    writeWorkerConfig(box, { maxConcurrent: 3, pollIntervalSeconds: 0.05, healthPort: 0 });
    const changes: { id: string; repo: string }[] = [];
    for (let i = 0; i < CHANGES; i++)
      changes.push(await submitChangeTicket(box, `change-${i}`, coderScript(CORRECT_FIX)));
    const queue = box.queue();
    const cheap: string[] = [];
    for (let i = 0; i < CHEAP; i++) {
      // Distinct URLs: one repository each, so the repository claim does not serialise them.
      // Local and missing: read-only URL tickets now clone (ADR 0057 amendment), never the network.
      const path = box.ticket(
        `audit-${i}.md`,
        `repo: "file://${join(box.dir, "missing", `r${i}.git`)}"\naudit:\n  focus: input validation`,
      );
      const result = await queue.submit(path, readFileSync(path));
      expect(result.findings).toEqual([]);
      cheap.push(result.id);
    }
    const second = join(box.dir, "home-b");
    mkdirSync(second);
    symlinkSync(join(box.root, "queue"), join(second, "queue"));
    symlinkSync(join(box.root, "data"), join(second, "data"));
    cpSync(join(box.root, "config.json"), join(second, "config.json"));

    const cassette = writeCassette(demoCassette());
    const daemons = [box.root, second].map((root) =>
      startDevflow(["daemon", "--replay", cassette], { DEVFLOW_HOME: root }),
    );
    const all = [...changes.map((c) => c.id), ...cheap];
    const ended = () => queueFiles(box, "done").length + queueFiles(box, "failed").length;
    try {
      await waitFor(
        "every ticket to end",
        () => ended() === all.length || daemons.some((d) => d.child.exitCode !== null),
        400_000,
      );
    } finally {
      for (const d of daemons) if (d.child.exitCode === null) d.child.kill("SIGTERM");
    }
    const codes = await Promise.all(daemons.map((d) => d.exit));
    expect(codes, daemons.map((d) => d.stderr()).join("\n")).toEqual([0, 0]);

    const [a, b] = daemons.map((d) => claimsIn(d.stderr())) as [string[], string[]];
    expect(a.length).toBeGreaterThan(0); // both really claimed: otherwise no race happened
    expect(b.length).toBeGreaterThan(0);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    expect([...a, ...b].sort()).toEqual([...all].sort()); // each claimed once, none lost

    expect(queueFiles(box, "inbox")).toEqual([]);
    expect(queueFiles(box, "processing")).toEqual([]);
    for (const id of all) {
      expect(revisions<TicketResult>(box, id, "ticket_result"), id).toHaveLength(1);
      const states = revisions<TicketRecord>(box, id, "ticket_record").map((r) => r.state);
      expect(
        states.filter((s) => s === "processing"),
        id,
      ).toHaveLength(1);
      expect(
        states.filter((s) => s === "done" || s === "failed"),
        id,
      ).toHaveLength(1);
    }
    for (const id of cheap) {
      const result = readResult(box, id);
      expect(result).toMatchObject({ id, kind: "audit", status: "failed", verdict: "error" });
      expect(result.reason, id).toMatch(/^CLONE_FAILED: could not clone file:\/\//);
    }
    for (const { id, repo } of changes) {
      const result = readResult(box, id);
      expect(result, id).toMatchObject({ kind: "change", status: "completed", verdict: "completed" });
      const branch = checkBranch(repo, result.branch as string);
      expect(branch.testsPass).toBe(true);
      expect(branch.commitsAhead).toBe(1);
    }
  }, 600_000);
});
