import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestReport } from "./test-reports/index.js";

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

interface Counts {
  reg: number;
  pass: number;
  fail: number;
}

const KINDS = new Set(["reg", "skip", "pass", "fail", "end"]);

/**
 * Why the report of a node:test run cannot be believed, or null. Every test the report says passed
 * needs, by its path (suites and title), as many signed passes in the ledger; a test path the
 * ledger saw fail more often than the report shows it not passing, or registered more often than
 * it ran (a look-alike registered first, the real test never run), is a forgery too; so is a test the
 * ledger saw registered, or fail, that the report leaves out or shows passing. Every ledger file must
 * be an unbroken chain under the run's key ending in its end record.
 */
export function ledgerProblem(ledger: Ledger, report: TestReport): string | null {
  const counts = new Map<string, Counts>();
  const countOf = (path: string): Counts => {
    const c = counts.get(path) ?? { reg: 0, pass: 0, fail: 0 };
    counts.set(path, c);
    return c;
  };
  let files: string[];
  try {
    files = readdirSync(ledger.dir).sort();
  } catch {
    files = [];
  }
  const nonces = new Set<string>();
  for (const file of files) {
    const problem = readChain(ledger.key, join(ledger.dir, file), (kind, path) => {
      if (kind === "reg" || kind === "pass" || kind === "fail") countOf(path)[kind] += 1;
    });
    if (typeof problem === "string") return `devflow's ledger file ${file} ${problem}: forged or cut short`;
    if (nonces.has(problem.nonce))
      return `devflow's ledger file ${file} repeats another process's records: forged`;
    nonces.add(problem.nonce);
  }
  const reported = new Map<string, { pass: number; other: number; name: string }>();
  for (const t of report.tests) {
    // node:test's result for a whole file that reported no test of its own (named after the file):
    // the process's exit status, no test function ran, so there is nothing for the ledger to back.
    if (t.id.suites.length === 0 && (t.id.title === t.id.file || t.id.title.endsWith(`/${t.id.file}`)))
      continue;
    const path = JSON.stringify([...t.id.suites, t.id.title]);
    const r = reported.get(path) ?? { pass: 0, other: 0, name: [...t.id.suites, t.id.title].join(" > ") };
    if (t.status === "pass") r.pass += 1;
    else r.other += 1;
    reported.set(path, r);
  }
  for (const [path, r] of reported) {
    if (r.pass === 0) continue;
    const c = counts.get(path) ?? { reg: 0, pass: 0, fail: 0 };
    if (c.pass < r.pass)
      return `the runner reported "${r.name}" passing but devflow's ledger has no pass for it: forged or unmonitored test output`;
    if (c.fail > r.other)
      return `the runner reported "${r.name}" passing but devflow's ledger saw it fail: forged test output`;
    if (c.reg > c.pass + c.fail + r.other)
      return `the runner reported "${r.name}" passing but devflow's ledger saw it registered ${c.reg} times and run ${c.pass + c.fail}: a look-alike test stood in for it`;
  }
  // Every test the ledger saw registered is in the report, and every signed failure is reported as
  // one: a test renamed or dropped from the report after it failed (its pass then signed for a
  // look-alike under the old name) is a forgery too (third hostile review).
  for (const [path, c] of counts) {
    const r = reported.get(path) ?? { pass: 0, other: 0, name: (JSON.parse(path) as string[]).join(" > ") };
    if (c.fail > r.other)
      return `devflow's ledger saw "${r.name}" fail ${c.fail} times but the runner reported it failing ${r.other}: forged test output`;
    if (c.reg > r.pass + r.other)
      return `devflow's ledger saw "${r.name}" registered ${c.reg} times but the runner reported it ${r.pass + r.other}: forged test output`;
  }
  return null;
}

/** Reads one process's chain; calls `onRecord` for each; a string says what is wrong with it. */
function readChain(
  key: Buffer,
  file: string,
  onRecord: (kind: string, path: string) => void,
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
    let r: { n?: unknown; i?: unknown; k?: unknown; p?: unknown; mac?: unknown };
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
      ended
    )
      return `has a record out of place (line ${i + 1})`;
    const body = JSON.stringify([nonce, i, r.k, path]);
    const mac = createHmac("sha256", key).update(`${prev}\n${body}`).digest("hex");
    if (r.mac !== mac) return `has a record devflow did not sign (line ${i + 1})`;
    prev = mac;
    if (r.k === "end") ended = true;
    else if (path) onRecord(r.k, JSON.stringify(path));
  }
  if (nonce === null) return "is empty";
  if (!ended) return "has no end record (the test process was killed or left past devflow's exit hook)";
  return { nonce };
}
