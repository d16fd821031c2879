import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TicketRecord, TicketResult } from "../../src/artifacts/schemas/ticket.js";
import {
  checkBranch,
  finishedTickets,
  markedCoder,
  queueFiles,
  readRecord,
  readResult,
  revisions,
  sandboxPerTest,
  startDaemon,
  startsOf,
  submitChangeTicket,
  waitFor,
  writeWorkerConfig,
} from "../support/daemon-harness.js";
import { CORRECT_FIX, coderScript, tempDir } from "../support/lane-harness.js";

/**
 * `devflow daemon` as a real process (bin/devflow.js, the compiled CLI: run `npm run build` first)
 * on real fixture repositories, with `command:` coders and the demo cassette replayed for every
 * ticket. Results are checked independently of devflow: git shows the branch, the fixture's own
 * tests run on a checkout of it.
 */
const box = sandboxPerTest();

/**
 * A coder that notes each start in `starts`, waits `ms` at its first start (time to stop the daemon
 * mid-coder) and then fixes. A later start (the resumed lane's) fixes at once: nothing stops it,
 * so a wait there would only be waited out.
 */
const slowCorrectCoder = (starts: string, ms: number): string =>
  markedCoder(
    starts,
    `import { readFileSync as readStarts } from "node:fs";
if (readStarts(${JSON.stringify(starts)}, "utf8").split("\\n").filter(Boolean).length === 1)
  await new Promise((r) => setTimeout(r, ${ms}));
${CORRECT_FIX}`,
  );

const finished = finishedTickets;

function expectCompletedOnce(id: string, repo: string): TicketResult {
  const result = readResult(box, id);
  expect(result).toMatchObject({ id, kind: "change", status: "completed", verdict: "completed" });
  expect(result.branch).toBeTruthy();
  const branch = checkBranch(repo, result.branch as string);
  expect(branch.file).toContain("row.email.trim()");
  expect(branch.testsPass).toBe(true);
  expect(branch.commitsAhead).toBe(1);
  // Exactly once: one terminal record ever, one move to done/.
  expect(revisions<TicketResult>(box, id, "ticket_result")).toHaveLength(1);
  const states = revisions<TicketRecord>(box, id, "ticket_record").map((r) => r.state);
  expect(states.filter((s) => s === "done")).toHaveLength(1);
  expect(queueFiles(box, "done")).toContain(`${id}.md`);
  return result;
}

describe("devflow daemon", () => {
  it("runs three change tickets to three terminal records whose branches hold the verified fix", async () => {
    writeWorkerConfig(box);
    const tickets = [];
    for (const name of ["one", "two", "three"])
      tickets.push(await submitChangeTicket(box, name, coderScript(CORRECT_FIX)));
    const daemon = startDaemon(box);
    await waitFor("three done tickets", () => finished(box) === 3 || daemon.child.exitCode !== null);
    daemon.child.kill("SIGTERM");
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    for (const { id, repo } of tickets) {
      const result = expectCompletedOnce(id, repo);
      expect(result.resumed).toBe(false);
      expect(result.attempts).toBeGreaterThanOrEqual(1);
      expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(result.artifact_dir).toContain(id);
      // The Verification block ran as an extra verifier of the attempt the verdict stands on (ADR 0056).
      expect(result.verification).toEqual([
        expect.objectContaining({
          code: "npm test",
          status: "pass",
          exit_code: 0,
          // ADR 0059: a passing block says it was judged by its exit code only.
          reason: expect.stringMatching(/^passed, judged by exit code only/),
        }),
      ]);
    }
    expect(daemon.stderr()).toContain("stopped");
  }, 600_000);

  it("a second daemon on the same data root exits 0 and names the first", async () => {
    writeWorkerConfig(box);
    const first = startDaemon(box);
    await waitFor("the first daemon to start", () => first.stderr().includes("working on"), 60_000);
    const second = startDaemon(box);
    // A second daemon that did not see the lock would run on: it is killed after 30 s, and fails here.
    const watchdog = setTimeout(() => second.child.kill("SIGKILL"), 30_000);
    expect(await second.exit).toBe(0);
    clearTimeout(watchdog);
    expect(second.stderr()).toMatch(/another devflow daemon \(pid \d+ on .+\) already works on/);
    expect(second.stderr()).toContain(String(first.child.pid));
    first.child.kill("SIGTERM");
    expect(await first.exit).toBe(0);
  }, 120_000);

  it("SIGTERM during a ticket: the daemon exits 0, the ticket is back in the inbox, a restart resumes it and finishes it once", async () => {
    writeWorkerConfig(box, { graceSeconds: 0 });
    const starts = join(tempDir(), "starts");
    const { id, repo } = await submitChangeTicket(box, "slow", slowCorrectCoder(starts, 4000));
    const first = startDaemon(box);
    await waitFor("the coder to start", () => startsOf(starts) === 1);
    first.child.kill("SIGTERM");
    expect(await first.exit, first.stderr()).toBe(0);
    expect(queueFiles(box, "inbox")).toEqual([`${id}.md`]);
    expect(readRecord(box, id)).toMatchObject({ state: "inbox", status: "queued", retry_count: 0 });
    expect(readRecord(box, id).reason).toContain("resumes it from its checkpoint");

    const second = startDaemon(box);
    await waitFor("the ticket to finish", () => finished(box) === 1 || second.child.exitCode !== null);
    second.child.kill("SIGTERM");
    expect(await second.exit, second.stderr()).toBe(0);
    const result = expectCompletedOnce(id, repo);
    expect(result.resumed).toBe(true);
    // The coder was stopped mid-run and started once more by the resumed lane, not a third time.
    expect(startsOf(starts)).toBe(2);
  }, 600_000);

  it("SIGTERM within the grace period lets the running ticket finish before the daemon exits", async () => {
    writeWorkerConfig(box, { graceSeconds: 120 });
    const starts = join(tempDir(), "starts");
    const { id, repo } = await submitChangeTicket(box, "graceful", slowCorrectCoder(starts, 3000));
    const daemon = startDaemon(box);
    await waitFor("the coder to start", () => startsOf(starts) === 1);
    daemon.child.kill("SIGTERM");
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    expect(daemon.stderr()).toContain("1 running ticket(s) get 120s to finish");
    const result = expectCompletedOnce(id, repo);
    expect(result.resumed).toBe(false);
    expect(startsOf(starts)).toBe(1);
  }, 600_000);

  it("a second SIGTERM stops at once (143); the next start recovers the ticket and finishes it once", async () => {
    writeWorkerConfig(box, { graceSeconds: 120 });
    const starts = join(tempDir(), "starts");
    const { id, repo } = await submitChangeTicket(box, "forced", slowCorrectCoder(starts, 4000));
    const first = startDaemon(box);
    await waitFor("the coder to start", () => startsOf(starts) === 1);
    first.child.kill("SIGTERM");
    await waitFor(
      "the first signal to be taken",
      () => first.stderr().includes("get 120s to finish"),
      30_000,
    );
    first.child.kill("SIGTERM");
    expect(await first.exit, first.stderr()).toBe(143);
    expect(first.stderr()).toContain("stopped at once by SIGTERM");
    expect(queueFiles(box, "processing")).toHaveLength(1);

    const second = startDaemon(box);
    await waitFor("the ticket to finish", () => finished(box) === 1 || second.child.exitCode !== null);
    second.child.kill("SIGTERM");
    expect(await second.exit, second.stderr()).toBe(0);
    expect(second.stderr()).toContain(`recovered ${id} (owner_dead)`);
    expect(expectCompletedOnce(id, repo).resumed).toBe(true);
  }, 600_000);

  it("a kill -9'd daemon mid-ticket: the next start recovers the lease and finishes the ticket once", async () => {
    writeWorkerConfig(box);
    const starts = join(tempDir(), "starts");
    const { id, repo } = await submitChangeTicket(box, "crash", slowCorrectCoder(starts, 4000));
    const first = startDaemon(box);
    await waitFor("the coder to start", () => startsOf(starts) === 1);
    process.kill(-(first.child.pid as number), "SIGKILL");
    await first.exit;
    expect(queueFiles(box, "processing")).toHaveLength(1);

    const second = startDaemon(box);
    await waitFor("the ticket to finish", () => finished(box) === 1 || second.child.exitCode !== null);
    second.child.kill("SIGTERM");
    expect(await second.exit, second.stderr()).toBe(0);
    expect(second.stderr()).toContain(`recovered ${id} (owner_dead)`);
    expect(readRecord(box, id).recoveries).toBe(1);
    const result = expectCompletedOnce(id, repo);
    expect(result.resumed).toBe(true);
    expect(startsOf(starts)).toBe(2);
  }, 600_000);
});
