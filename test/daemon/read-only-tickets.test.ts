import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { DaemonConfig } from "../../src/artifacts/schemas/ticket.js";
import { parseArtifact } from "../../src/artifacts/validate.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import { bookSpend, readSpendLedger } from "../../src/daemon/spend-ledger.js";
import { ticketRunner } from "../../src/daemon/ticket-runner.js";
import { Worker } from "../../src/daemon/worker.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import type { CassetteEntry } from "../../src/models/cassette.js";
import { stopReason } from "../../src/process/stop-signal.js";
import { compareFingerprints, fingerprintRepo } from "../../src/workspace/repo-fingerprint.js";
import { cassetteWith } from "../chat/support/intake-fixtures.js";
import { queueFiles, readRecord, readResult, sandboxPerTest, waitFor } from "../support/daemon-harness.js";
import { bareRemote, freePort, startGitDaemon } from "../support/git-remote.js";
import { submitTicket } from "../support/queue-harness.js";

/**
 * Audit, investigate and question tickets (issue 12, ADR 0057) run by the worker in-process on a
 * real file queue, through the real ticket runner and the insight lane, with the model replayed
 * from a cassette. Checked: the terminal record, the answer stored in the data root (never in the
 * repository: its fingerprint and `git status` are the same after), the spend booked like a change
 * ticket's, and an insight that could not answer is not `completed`.
 */
const box = sandboxPerTest();

const config = DaemonConfig.parse({ worker: { pollIntervalSeconds: 0.05, recoverIntervalSeconds: 60 } });

const ANSWER = {
  answer: "`validateRow` tests the raw cell against `EMAIL` (src/csv-import.js:16), before any trimming.",
  references: [
    { path: "src/csv-import.js", line: 16 },
    { path: "src/does-not-exist.js", line: 3 },
  ],
};

/** A model that first tries to write, run and commit (read-only tools: refused), then answers. */
const HOSTILE_THEN_ANSWER: CassetteEntry[] = [
  {
    content: "Let me fix it while I am here.",
    tool_calls: [
      { name: "write_file", args: { path: "src/csv-import.js", content: "" } },
      { name: "write_test_file", args: { path: "test/new.test.js", content: "x" } },
      { name: "run_command", args: { command: "git commit --allow-empty -m hacked && touch hacked" } },
    ],
  },
  { content: "", tool_calls: [{ name: "read_file", args: { path: "src/csv-import.js" } }] },
  { structured: ANSWER },
];

const submit = (queue: FsTicketQueue, frontmatter: string, body: string) =>
  submitTicket(box, queue, frontmatter, body);

/** Runs the real ticket runner (replaying `insight` answers) until `count` tickets ended. */
async function runTickets(queue: FsTicketQueue, insight: CassetteEntry[], count: number): Promise<string[]> {
  const lines: string[] = [];
  const runner = ticketRunner(box.root, {
    model: "gpt-4.1-mini",
    coder: "builtin",
    mode: "replay",
    cassettePath: cassetteWith({ insight }),
    lane: {},
  });
  const worker = new Worker({ root: box.root, queue, config, runner, log: (l) => lines.push(l) });
  const running = worker.run();
  await waitFor(
    "the tickets to end",
    () => queueFiles(box, "done").length + queueFiles(box, "failed").length === count,
    120_000,
  );
  worker.stop(stopReason("SIGTERM", null));
  await running;
  return lines;
}

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });

/** The repository as far as anyone could tell it changed: devflow's fingerprint, status, branches. */
async function repoSnapshot(repo: string) {
  return {
    fingerprint: await fingerprintRepo(repo),
    status: git(repo, "status", "--porcelain=v1", "--untracked-files=all", "--ignored"),
    branches: git(repo, "branch", "--all", "--format=%(refname)"),
    worktrees: git(repo, "worktree", "list", "--porcelain"),
  };
}

async function expectUnchanged(repo: string, before: Awaited<ReturnType<typeof repoSnapshot>>) {
  const after = await repoSnapshot(repo);
  expect(compareFingerprints(before.fingerprint, after.fingerprint, () => false)).toEqual([]);
  expect(after.status).toBe(before.status);
  expect(after.branches).toBe(before.branches);
  expect(after.worktrees).toBe(before.worktrees);
  // Not even devflow's own folder: the answer lives in the data root (ADR 0057).
  expect(existsSync(join(repo, ".devflow"))).toBe(false);
  expect(existsSync(join(repo, "hacked"))).toBe(false);
}

/** Every file of a bare repository with its bytes: a write of any kind (ref, object, config) shows. */
function fingerprintBare(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile())
      files[join(entry.parentPath, entry.name)] = createHash("sha256")
        .update(readFileSync(join(entry.parentPath, entry.name)))
        .digest("hex");
  return files;
}

const readAnswer = (path: string) => parseArtifact("ticket_answer", JSON.parse(readFileSync(path, "utf8")));

describe("read-only tickets on the insight lane", () => {
  it("an audit parks its findings in the data root, ends completed/answered, books its spend, and the repository does not change", async () => {
    const repo = createFixtureRepo("csv-import");
    const before = await repoSnapshot(repo);
    const queue = new FsTicketQueue(box.root, config);
    const id = await submit(
      queue,
      `repo: ${JSON.stringify(repo)}\naudit:\n  focus: email validation`,
      "Check how rows are validated.\n",
    );
    await runTickets(queue, HOSTILE_THEN_ANSWER, 1);

    const result = readResult(box, id);
    expect(result).toMatchObject({
      kind: "audit",
      status: "completed",
      verdict: "answered",
      branch: null,
      commit: null,
    });
    const answerPath = join(box.root, "data", "tickets", id, "ticket_answer.json");
    expect(result.answer).toBe(answerPath);
    expect(result.reason).toContain(`findings parked for review at ${answerPath}`);
    expect(queueFiles(box, "done")).toEqual([`${id}.md`]);
    const answer = readAnswer(answerPath);
    expect(answer).toMatchObject({
      id,
      kind: "audit",
      status: "answered",
      answer: ANSWER.answer,
      stopped_by: null,
    });
    expect(answer.question).toContain("Focus: email validation");
    expect(answer.question).toContain("Check how rows are validated.");
    expect(answer.references).toEqual([{ path: "src/csv-import.js", line: 16 }]);
    expect(answer.unverified_references.map((r) => r.path)).toEqual(["src/does-not-exist.js"]);
    expect(answer.repo).toBe(readRecord(box, id).repo_key);
    expect(answer.head_commit).toBe(git(repo, "rev-parse", "HEAD").trim());
    // Spend: the run's three model calls are one session of the ticket, as the record says.
    const ledger = await readSpendLedger(box.root);
    const day = Object.values(ledger.days)[0];
    expect(day?.tickets[id]?.by_role.insight?.sessions).toBe(1);
    expect(result.cost_usd?.sessions).toBe(1);
    await expectUnchanged(repo, before);
  }, 120_000);

  it("an investigation asks the block's question with the ticket's body as context", async () => {
    const repo = createFixtureRepo("csv-import");
    const before = await repoSnapshot(repo);
    const queue = new FsTicketQueue(box.root, config);
    const id = await submit(
      queue,
      `repo: ${JSON.stringify(repo)}\ninvestigate:\n  question: Why are emails with spaces rejected?`,
      "Customers import contacts from Excel exports.\n",
    );
    await runTickets(queue, [{ structured: ANSWER }], 1);
    const result = readResult(box, id);
    expect(result).toMatchObject({ kind: "investigate", status: "completed", verdict: "answered" });
    const answer = readAnswer(result.answer as string);
    expect(answer.kind).toBe("investigate");
    expect(answer.question).toContain("Why are emails with spaces rejected?");
    expect(answer.question).toContain("Customers import contacts from Excel exports.");
    expect(result.reason).toContain("answer stored at");
    await expectUnchanged(repo, before);
  }, 120_000);

  it("a question (no repo:) is answered with read-only tools over an empty folder that is gone afterwards", async () => {
    const queue = new FsTicketQueue(box.root, config);
    const id = await submit(queue, "priority: high", "What is the difference between a lease and a lock?\n");
    await runTickets(
      queue,
      [
        { content: "", tool_calls: [{ name: "list_files", args: {} }] },
        { structured: { answer: "A lease expires; a lock is held until released.", references: [] } },
      ],
      1,
    );
    const result = readResult(box, id);
    expect(result).toMatchObject({ kind: "question", status: "completed", verdict: "answered" });
    const answer = readAnswer(result.answer as string);
    expect(answer).toMatchObject({ kind: "question", repo: null, head_commit: null, references: [] });
    expect(answer.question).toContain("What is the difference between a lease and a lock?");
    expect(existsSync(join(box.root, "cache", "questions", id))).toBe(false);
  }, 120_000);

  it("an insight that stops without its own answer is stored but ends failed/unanswered, never completed", async () => {
    const repo = createFixtureRepo("csv-import");
    const queue = new FsTicketQueue(box.root, config);
    const id = await submit(
      queue,
      `repo: ${JSON.stringify(repo)}\ninvestigate:\n  question: Is parseCsv safe?`,
      "Context.\n",
    );
    await runTickets(queue, [{ content: "I think it is fine." }], 1);
    const result = readResult(box, id);
    expect(result).toMatchObject({ kind: "investigate", status: "failed", verdict: "unanswered" });
    expect(result.reason).toMatch(/stopped before reaching an answer/);
    expect(queueFiles(box, "failed")).toEqual([`${id}.md`]);
    expect(readAnswer(result.answer as string)).toMatchObject({
      status: "unanswered",
      stopped_by: "no_answer",
    });
  }, 120_000);

  it("a read-only ticket whose budget_usd is already spent is not run (no model call) and ends budget_exhausted", async () => {
    const repo = createFixtureRepo("csv-import");
    const queue = new FsTicketQueue(box.root, config);
    const id = await submit(
      queue,
      `repo: ${JSON.stringify(repo)}\naudit:\n  focus: auth\nbudget_usd: 0.01`,
      "Audit.\n",
    );
    await bookSpend(
      box.root,
      [{ ticketId: id, role: "insight", knownUsd: 0.02, costUnknown: false }],
      new Date(),
    );
    // An empty cassette: any model call would end the ticket `error` (REPLAY_EXHAUSTED) instead.
    await runTickets(queue, [], 1);
    const result = readResult(box, id);
    expect(result).toMatchObject({ kind: "audit", status: "failed", verdict: "budget_exhausted" });
    expect(result.reason).toContain("budget_usd reached");
    expect(existsSync(join(box.root, "data", "tickets", id, "ticket_answer.json"))).toBe(false);
  }, 120_000);

  /**
   * Regression: a read-only ticket whose `repo:` is a git URL ended `failed`/`unsupported`
   * ("not run yet") while change tickets of a URL already ran on a managed clone. Fix: the runner
   * reads a fresh shallow clone at `cache/reads/<id>/` made by devflow's own git (cloneForReading:
   * no hooks, template or smudge filter; only a fetch) and removes it after the run; the answer
   * names the URL and the commit read.
   */
  it("a read-only ticket of a git URL reads a managed clone, answers, and the remote is byte-identical", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const before = fingerprintBare(remote.dir);
    const queue = new FsTicketQueue(box.root, config);
    const id = await submit(
      queue,
      `repo: ${JSON.stringify(remote.url)}\ninvestigate:\n  question: Why are emails with spaces rejected?`,
      "Context.\n",
    );
    await runTickets(queue, HOSTILE_THEN_ANSWER, 1);

    const result = readResult(box, id);
    expect(result).toMatchObject({
      kind: "investigate",
      status: "completed",
      verdict: "answered",
      branch: null,
      commit: null,
    });
    const answer = readAnswer(result.answer as string);
    // The references were checked against the clone's files: the real one verified, the made-up one not.
    expect(answer.references).toEqual([{ path: "src/csv-import.js", line: 16 }]);
    expect(answer.unverified_references.map((r) => r.path)).toEqual(["src/does-not-exist.js"]);
    expect(answer).toMatchObject({
      repo: remote.url,
      head_commit: git(remote.dir, "rev-parse", "HEAD").trim(),
    });
    // The model's tools saw the file (its read_file call was answered, not refused).
    expect(answer.tool_calls).toBeGreaterThan(0);
    // The clone only served the run; the change flow's clones folder is not used for it.
    expect(existsSync(join(box.root, "cache", "reads", id))).toBe(false);
    expect(existsSync(join(box.root, "cache", "clones", id))).toBe(false);
    // Nothing was written to the remote: every file in it has the same bytes.
    expect(fingerprintBare(remote.dir)).toEqual(before);
  }, 120_000);

  it("an audit of a git:// URL served by a real git daemon on 127.0.0.1 reads it and leaves the remote as it was", async () => {
    const remote = bareRemote(createFixtureRepo("csv-import"));
    const server = await startGitDaemon(dirname(remote.dir), "remote.git");
    try {
      const before = fingerprintBare(remote.dir);
      const queue = new FsTicketQueue(box.root, config);
      const url = server.url("remote.git");
      const id = await submit(
        queue,
        `repo: ${JSON.stringify(url)}\naudit:\n  focus: email validation`,
        "Audit.\n",
      );
      await runTickets(queue, [{ structured: ANSWER }], 1);
      const result = readResult(box, id);
      expect(result).toMatchObject({ kind: "audit", status: "completed", verdict: "answered" });
      expect(readAnswer(result.answer as string)).toMatchObject({
        repo: url,
        head_commit: git(remote.dir, "rev-parse", "HEAD").trim(),
        references: [{ path: "src/csv-import.js", line: 16 }],
      });
      expect(existsSync(join(box.root, "cache", "reads", id))).toBe(false);
      expect(fingerprintBare(remote.dir)).toEqual(before);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("a read-only ticket of a URL nothing answers ends failed/error CLONE_FAILED, without the URL's token, nothing spent, no folder left", async () => {
    const url = `git://reader:tok3n-secret@127.0.0.1:${await freePort()}/remote.git`;
    const queue = new FsTicketQueue(box.root, config);
    const id = await submit(queue, `repo: ${JSON.stringify(url)}\naudit:\n  focus: anything`, "Audit.\n");
    // An empty cassette: a model call would end the ticket REPLAY_EXHAUSTED instead.
    await runTickets(queue, [], 1);
    const result = readResult(box, id);
    expect(result).toMatchObject({ kind: "audit", status: "failed", verdict: "error" });
    expect(result.reason).toMatch(/^CLONE_FAILED: could not clone git:\/\/\*\*\*@127\.0\.0\.1:/);
    expect(JSON.stringify(result)).not.toContain("tok3n-secret");
    expect(existsSync(join(box.root, "cache", "reads", id))).toBe(false);
    expect(existsSync(join(box.root, "data", "tickets", id, "ticket_answer.json"))).toBe(false);
  }, 120_000);
});
