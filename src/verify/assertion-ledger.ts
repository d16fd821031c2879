import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestReport } from "./test-reports/index.js";
import { relativeTestFile } from "./test-reports/report-builder.js";

/**
 * devflow's assertion ledger (ADR 0048): what the test-file processes of a node:test run really
 * ran, written by the preload assertion-ledger.mjs with a per-run key the code under test never
 * sees, and checked here against the runner's report. The report travels on stdout, which the code
 * under test can rewrite; a pass the ledger does not back is a forgery (or output devflow did not
 * monitor) and fails the run.
 */
export const ASSERTION_LEDGER_PRELOAD = new URL("./assertion-ledger.mjs", import.meta.url);

export interface Ledger {
  /** Where the test processes write (one file each); in a directory the run may write. */
  dir: string;
  key: Buffer;
  /** Holds the key until the `node --test` runner's preload takes and removes it. */
  keyFile: string;
  /** For the command's environment: where the key and the records go (the key itself never). */
  env: Record<string, string>;
}

/**
 * A fresh ledger in `dir` (emptied): a new key for every run, so no record outlives its run. The
 * key goes in a file next to `dir` (not in the environment: the shell that runs the command would
 * keep it in its /proc environ, readable by the test processes); call `closeLedger` after the run.
 */
export function newLedger(dir: string): Ledger {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32);
  const keyFile = `${dir}.key`;
  writeFileSync(keyFile, key.toString("hex"), { mode: 0o600 });
  return { dir, key, keyFile, env: { DEVFLOW_LEDGER_KEY_FILE: keyFile, DEVFLOW_LEDGER_DIR: dir } };
}

/** Removes the key file if no runner took it (the command ran no `node --test`, or failed first). */
export function closeLedger(ledger: Ledger): void {
  rmSync(ledger.keyFile, { force: true });
}

/** What the ledger signed for one test identity (file and path). */
interface Counts {
  reg: number;
  pass: number;
  /** Failures node may report only as failures. */
  fail: number;
  /** Failures of a test registered as todo or marked t.todo(): reported as failures or todo. */
  failTodo: number;
  /** Failures of a test marked t.skip() while it ran: reported as failures, todo or skips. */
  failSkip: number;
}

/** What the report shows for one test identity. */
interface Reported {
  pass: number;
  fail: number;
  todo: number;
  skip: number;
  name: string;
}

const KINDS = new Set(["reg", "pass", "fail", "fail-todo", "fail-skip", "end"]);
const OUTCOME: Record<string, keyof Counts> = {
  reg: "reg",
  pass: "pass",
  fail: "fail",
  "fail-todo": "failTodo",
  "fail-skip": "failSkip",
};

/**
 * Why the report of a node:test run cannot be believed, or null. Tests are matched by their file
 * (as node reports it, relative to `root` as the report has it) and path (suites and title): a
 * look-alike's signed pass backs no test of another file (stop 51, attack 58a). Every test the
 * report says passed needs as many signed passes; a signed failure must show as a failure, or as
 * a todo or skip only when the ledger signed the test todo or skipped (a reported skip never
 * absorbs a plain failure: a test skipped at registration never runs, so it signs nothing); a test
 * registered more often than it ran and was reported not passing (a look-alike registered first,
 * the real test never run) is a forgery too; so is a test the ledger saw registered, or fail, that
 * the report leaves out. Every ledger file must be an unbroken chain under the run's key ending in
 * its end record.
 */
export function ledgerProblem(ledger: Ledger, report: TestReport, root: string): string | null {
  const counts = new Map<string, Counts>();
  let files: string[];
  try {
    files = readdirSync(ledger.dir).sort();
  } catch {
    files = [];
  }
  const nonces = new Set<string>();
  for (const file of files) {
    const problem = readChain(ledger.key, join(ledger.dir, file), (kind, path, testFile) => {
      const key = JSON.stringify([relativeTestFile(root, testFile), ...path]);
      const c = counts.get(key) ?? { reg: 0, pass: 0, fail: 0, failTodo: 0, failSkip: 0 };
      counts.set(key, c);
      const field = OUTCOME[kind];
      if (field) c[field] += 1;
    });
    if (typeof problem === "string") return `devflow's ledger file ${file} ${problem}: forged or cut short`;
    if (nonces.has(problem.nonce))
      return `devflow's ledger file ${file} repeats another process's records: forged`;
    nonces.add(problem.nonce);
  }
  const reported = reportedTests(report);
  for (const [key, r] of reported) {
    if (r.pass === 0) continue;
    const c = counts.get(key) ?? { reg: 0, pass: 0, fail: 0, failTodo: 0, failSkip: 0 };
    if (c.pass < r.pass)
      return `the runner reported "${r.name}" passing but devflow's ledger has no pass for it: forged or unmonitored test output`;
    if (unreportedFailure(c, r))
      return `the runner reported "${r.name}" passing but devflow's ledger saw it fail: forged test output`;
    const ran = c.pass + c.fail + c.failTodo + c.failSkip;
    if (c.reg > ran + r.fail + r.todo + r.skip)
      return `the runner reported "${r.name}" passing but devflow's ledger saw it registered ${c.reg} times and run ${ran}: a look-alike test stood in for it`;
  }
  // Every test the ledger saw registered is in the report, and every signed failure is reported as
  // one: a test renamed or dropped from the report after it failed (its pass then signed for a
  // look-alike under the old name) is a forgery too (third hostile review).
  for (const [key, c] of counts) {
    const r = reported.get(key) ?? { pass: 0, fail: 0, todo: 0, skip: 0, name: nameOf(key) };
    const failed = c.fail + c.failTodo + c.failSkip;
    if (unreportedFailure(c, r))
      return `devflow's ledger saw "${r.name}" fail ${failed} times but the runner reported it failing ${r.fail} (todo ${r.todo}, skipped ${r.skip}): forged test output`;
    const shown = r.pass + r.fail + r.todo + r.skip;
    if (c.reg > shown)
      return `devflow's ledger saw "${r.name}" registered ${c.reg} times but the runner reported it ${shown}: forged test output`;
  }
  return null;
}

/** The report's tests by identity (file and path), counted by status. */
function reportedTests(report: TestReport): Map<string, Reported> {
  const reported = new Map<string, Reported>();
  for (const t of report.tests) {
    // node:test's result for a whole file that reported no test of its own (named after the file):
    // the process's exit status, no test function ran, so there is nothing for the ledger to back.
    if (t.id.suites.length === 0 && (t.id.title === t.id.file || t.id.title.endsWith(`/${t.id.file}`)))
      continue;
    const key = JSON.stringify([t.id.file, ...t.id.suites, t.id.title]);
    const r = reported.get(key) ?? { pass: 0, fail: 0, todo: 0, skip: 0, name: nameOf(key) };
    if (t.status === "pass") r.pass += 1;
    else if (t.status === "todo") r.todo += 1;
    else if (t.status === "skip") r.skip += 1;
    else r.fail += 1;
    reported.set(key, r);
  }
  return reported;
}

/**
 * Whether the report hides a signed failure: plain failures need reported failures; a todo's may
 * also show as todo; a skipped-while-running test's also as a skip (each class's statuses include
 * the one before, so counting from the narrowest class up decides it).
 */
function unreportedFailure(c: Counts, r: Reported): boolean {
  return (
    c.fail > r.fail ||
    c.fail + c.failTodo > r.fail + r.todo ||
    c.fail + c.failTodo + c.failSkip > r.fail + r.todo + r.skip
  );
}

/** "suite > title" from a ledger or report key (its file left out, as the messages always named tests). */
function nameOf(key: string): string {
  return (JSON.parse(key) as string[]).slice(1).join(" > ");
}

/** Reads one process's chain; calls `onRecord` for each; a string says what is wrong with it. */
function readChain(
  key: Buffer,
  file: string,
  onRecord: (kind: string, path: string[], file: string) => void,
): string | { nonce: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return "cannot be read";
  }
  const lines = text.split("\n").filter((l) => l !== "");
  let nonce: string | null = null;
  let prev = "";
  let ended = false;
  for (const [i, line] of lines.entries()) {
    let r: { n?: unknown; i?: unknown; k?: unknown; p?: unknown; f?: unknown; mac?: unknown };
    try {
      r = JSON.parse(line);
    } catch {
      return `has a line that is not JSON (line ${i + 1})`;
    }
    if (i === 0 && typeof r.n === "string") {
      nonce = r.n;
      prev = r.n;
    }
    const path =
      r.p === null ? null : Array.isArray(r.p) && r.p.every((s) => typeof s === "string") ? r.p : undefined;
    if (
      r.n !== nonce ||
      r.i !== i ||
      typeof r.k !== "string" ||
      !KINDS.has(r.k) ||
      path === undefined ||
      !(r.f === null || typeof r.f === "string") ||
      ended
    )
      return `has a record out of place (line ${i + 1})`;
    const body = JSON.stringify([nonce, i, r.k, path, r.f]);
    const mac = createHmac("sha256", key).update(`${prev}\n${body}`).digest("hex");
    if (r.mac !== mac) return `has a record devflow did not sign (line ${i + 1})`;
    prev = mac;
    if (r.k === "end") ended = true;
    else if (path) onRecord(r.k, path, typeof r.f === "string" ? r.f : "");
  }
  if (nonce === null) return "is empty";
  if (!ended) return "has no end record (the test process was killed or left past devflow's exit hook)";
  return { nonce };
}
