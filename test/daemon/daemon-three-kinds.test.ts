import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArtifact } from "../../src/artifacts/validate.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { compareFingerprints, fingerprintRepo } from "../../src/workspace/repo-fingerprint.js";
import {
  checkBranch,
  queueFiles,
  readResult,
  sandboxPerTest,
  startDaemon,
  submitChangeTicket,
  waitFor,
  writeWorkerConfig,
} from "../support/daemon-harness.js";
import { startDevflow } from "../support/devflow-process.js";
import { CORRECT_FIX, coderScript, demoCassette, writeCassette } from "../support/lane-harness.js";

/**
 * Issue 12's "Done when": a real `devflow daemon` (bin/devflow.js; `npm run build` first) given one
 * change ticket, one audit and one question finds three correct terminal records. The change's
 * branch is checked by git and the fixture's own tests; the audit's repository is fingerprinted
 * before and after (it must not change at all); `devflow status` tells each ticket's end.
 */
const box = sandboxPerTest();

const INSIGHT = {
  answer: "Emails are checked before trimming: `validateRow` tests the raw cell (src/csv-import.js:16).",
  references: [{ path: "src/csv-import.js", line: 16 }],
};

async function submitFile(name: string, frontmatter: string, body: string): Promise<string> {
  const path = box.ticket(name, frontmatter, body);
  const result = await box.queue().submit(path, readFileSync(path));
  if (result.findings.length) throw new Error(`ticket refused: ${JSON.stringify(result.findings)}`);
  return result.id;
}

async function devflow(...args: string[]): Promise<string> {
  const run = startDevflow(args, { DEVFLOW_HOME: box.root });
  expect(await run.exit, run.stderr()).toBe(0);
  return run.stdout();
}

describe("devflow daemon with one ticket of each flow", () => {
  it("a change, an audit and a question end in three correct terminal records", async () => {
    writeWorkerConfig(box);
    const change = await submitChangeTicket(box, "change", coderScript(CORRECT_FIX));
    const audited = createFixtureRepo("csv-import");
    const before = await fingerprintRepo(audited);
    const audit = await submitFile(
      "audit.md",
      `repo: ${JSON.stringify(audited)}\naudit:\n  focus: input validation`,
      "Look at how CSV rows are validated.\n",
    );
    const question = await submitFile("question.md", "priority: low", "Why do leases need a heartbeat?\n");
    const cassette = demoCassette();
    cassette.calls.insight = [{ structured: INSIGHT }];
    const daemon = startDaemon(box, writeCassette(cassette));
    await waitFor(
      "three finished tickets",
      () =>
        queueFiles(box, "done").length + queueFiles(box, "failed").length === 3 ||
        daemon.child.exitCode !== null,
    );
    daemon.child.kill("SIGTERM");
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    expect(queueFiles(box, "done").sort()).toEqual(
      [`${change.id}.md`, `${audit}.md`, `${question}.md`].sort(),
    );

    // The change: a verified branch holding the fix.
    const changed = readResult(box, change.id);
    expect(changed).toMatchObject({ kind: "change", status: "completed", verdict: "completed" });
    expect(checkBranch(change.repo, changed.branch as string).testsPass).toBe(true);
    expect(changed.answer).toBeUndefined();

    // The audit: findings parked in the data root, no branch, the repository untouched.
    const audited_ = readResult(box, audit);
    expect(audited_).toMatchObject({ kind: "audit", status: "completed", verdict: "answered", branch: null });
    expect(audited_.answer).toBe(join(box.root, "data", "tickets", audit, "ticket_answer.json"));
    const findings = parseArtifact(
      "ticket_answer",
      JSON.parse(readFileSync(audited_.answer as string, "utf8")),
    );
    expect(findings).toMatchObject({ kind: "audit", answer: INSIGHT.answer, references: INSIGHT.references });
    expect(compareFingerprints(before, await fingerprintRepo(audited), () => false)).toEqual([]);
    expect(
      execFileSync("git", ["-C", audited, "branch", "--format=%(refname:short)"], { encoding: "utf8" }),
    ).toBe("main\n");
    expect(existsSync(join(audited, ".devflow"))).toBe(false);

    // The question: answered with no repository; its reference cannot be checked, so it is not trusted.
    const asked = readResult(box, question);
    expect(asked).toMatchObject({ kind: "question", status: "completed", verdict: "answered", branch: null });
    const answer = parseArtifact("ticket_answer", JSON.parse(readFileSync(asked.answer as string, "utf8")));
    expect(answer).toMatchObject({ kind: "question", repo: null, references: [] });
    expect(answer.unverified_references.map((r) => r.path)).toEqual(["src/csv-import.js"]);

    // Spend: every ticket's sessions in the ledger, as its record says.
    for (const r of [changed, audited_, asked]) expect(r.cost_usd?.sessions).toBeGreaterThan(0);

    // devflow status tells each ticket's end, and the queue's counts.
    expect(await devflow("status", audit)).toContain(`findings parked for review at ${audited_.answer}`);
    expect(await devflow("status", question)).toMatch(
      /completed in done\/ \(question.*\n\s+reason: answered: question/,
    );
    const overview = await devflow("status");
    expect(overview).toContain("inbox 0, processing 0, done 3, failed 0");
    expect(overview).not.toContain("not built yet");
  }, 600_000);
});
