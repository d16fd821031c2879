import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SpendLedger } from "../../src/artifacts/schemas/spend.js";
import {
  bookSpend,
  daySpend,
  localDay,
  readSpendLedger,
  ticketSpend,
} from "../../src/daemon/spend-ledger.js";
import { sessionOf } from "../../src/daemon/ticket-spend.js";
import { spendLedgerPath } from "../../src/home/daemon-paths.js";
import type { NodeReport } from "../../src/lanes/iterate/lane/reporter.js";
import { UsageLedger } from "../../src/models/usage-ledger.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { type QueueSandbox, queueSandbox } from "../support/queue-harness.js";

/**
 * The spend ledger, data/spend.json (issue 12, ADR 0053): per local day and per ticket, every
 * update atomic against other processes, unknown cost counted as unknown (never $0, never in the sum).
 */
let box: QueueSandbox;
beforeEach(() => {
  box = queueSandbox();
  mkdirSync(box.root, { recursive: true });
});
afterEach(() => box.cleanup());

const TSX = join(PACKAGE_ROOT, "node_modules", ".bin", "tsx");
const BOOK_LOOP = join(PACKAGE_ROOT, "test", "daemon", "spend-book-loop.ts");

function bookingProcess(
  root: string,
  ticket: string,
  n: number,
): Promise<{ code: number | null; err: string }> {
  const child = spawn(TSX, [BOOK_LOOP, root, ticket, String(n)], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, err })));
}

const report = (node: string, over: Partial<NodeReport> = {}): NodeReport => ({
  node,
  phase: "end",
  ok: true,
  outcome: "",
  durationMs: 1,
  runState: null,
  attemptId: null,
  tokens: 0,
  costUsd: 0,
  detail: {},
  ...over,
});

describe("the spend ledger", () => {
  // Bug it pins: a ledger updated by read-modify-write without a lock loses one of two concurrent
  // updates (two daemons, or a daemon and a command, booking at once). Fix: every booking reads
  // and replaces data/spend.json under data/spend.lock, by temp file + rename.
  it("two real processes booking at once lose no update (120 + 120 sessions, exact sums)", async () => {
    const n = 120;
    const runs = [
      bookingProcess(box.root, "ticket-a-000001", n),
      bookingProcess(box.root, "ticket-b-000002", n),
    ];
    await new Promise((r) => setTimeout(r, 1500)); // both processes loaded, polling for go
    writeFileSync(join(box.root, "go"), "");
    for (const r of await Promise.all(runs)) expect(r, r.err).toMatchObject({ code: 0 });

    const ledger = SpendLedger.parse(JSON.parse(readFileSync(spendLedgerPath(box.root), "utf8")));
    const unknownEach = Math.ceil(n / 3);
    for (const id of ["ticket-a-000001", "ticket-b-000002"])
      expect(ticketSpend(ledger, id)).toEqual({
        known_usd: n * 0.25,
        unknown_sessions: unknownEach,
        sessions: n,
      });
    const days = Object.values(ledger.days);
    expect(days.reduce((sum, d) => sum + d.sessions, 0)).toBe(2 * n);
    expect(days.reduce((sum, d) => sum + d.known_usd, 0)).toBe(2 * n * 0.25);
  }, 120_000);

  it("records unknown cost as unknown: counted in unknown_sessions, never as $0 in the sum, never poisoning it", async () => {
    const at = new Date(2026, 5, 1, 12, 0, 0);
    await bookSpend(
      box.root,
      [
        { ticketId: "t-000001", role: "frame", knownUsd: 0.5, costUnknown: false },
        { ticketId: "t-000001", role: "code", knownUsd: 0, costUnknown: true },
        { ticketId: "t-000001", role: "verify", knownUsd: Number.NaN, costUnknown: false },
        { ticketId: "t-000001", role: "observe", knownUsd: 0.25, costUnknown: true },
      ],
      at,
    );
    const ledger = await readSpendLedger(box.root);
    expect(ticketSpend(ledger, "t-000001")).toEqual({ known_usd: 0.75, unknown_sessions: 3, sessions: 4 });
    expect(ledger.days[localDay(at)]?.tickets["t-000001"]?.by_role.code).toEqual({
      known_usd: 0,
      unknown_sessions: 1,
      sessions: 1,
    });
  });

  it("keys each session by the LOCAL calendar day it was spent on", async () => {
    const late = new Date(2026, 5, 1, 23, 59, 30);
    const early = new Date(2026, 5, 2, 0, 0, 30);
    await bookSpend(
      box.root,
      [{ ticketId: "t-000001", role: "frame", knownUsd: 1, costUnknown: false }],
      late,
    );
    await bookSpend(
      box.root,
      [{ ticketId: "t-000001", role: "frame", knownUsd: 2, costUnknown: false }],
      early,
    );
    const ledger = await readSpendLedger(box.root);
    expect(Object.keys(ledger.days).sort()).toEqual(["2026-06-01", "2026-06-02"]);
    expect(daySpend(ledger, "2026-06-02").known_usd).toBe(2);
    expect(ticketSpend(ledger, "t-000001").known_usd).toBe(3);
  });

  it("refuses a corrupt ledger with one line naming the file (never starts a fresh one over it)", async () => {
    mkdirSync(join(box.root, "data"), { recursive: true });
    writeFileSync(spendLedgerPath(box.root), "{ not json");
    await expect(
      bookSpend(
        box.root,
        [{ ticketId: "t-000001", role: "frame", knownUsd: 1, costUnknown: false }],
        new Date(),
      ),
    ).rejects.toThrow(/spend ledger .*spend\.json is unreadable .*move it aside/);
    expect(readFileSync(spendLedgerPath(box.root), "utf8")).toBe("{ not json");
  });
});

describe("what a step of a ticket run books", () => {
  it("a model call of an unpriced model and a coder that reports no cost are unknown-cost calls", () => {
    const ledger = new UsageLedger();
    ledger.book("framer", "gpt-4.1-mini", { input_tokens: 1000, output_tokens: 0 }, null);
    expect(ledger.snapshot().unknown_cost_calls).toBe(0);
    ledger.book("observer", "local-llama", { input_tokens: 1000, output_tokens: 0 }, null);
    ledger.bookExternal("coder", { input_tokens: 5, output_tokens: 5 }, null, "attempt-001");
    ledger.bookExternal("coder", { input_tokens: 5, output_tokens: 5 }, 0.5, "attempt-002");
    const snapshot = ledger.snapshot();
    expect(snapshot.unknown_cost_calls).toBe(2);
    expect(snapshot.total.cost_usd).toBeCloseTo(0.0004 + 0.5, 10);
  });

  it("one session per step that spent; the coder's step always, unknown when it booked nothing", () => {
    expect(sessionOf("t", report("gate"))).toBeNull();
    expect(sessionOf("t", report("frame", { phase: "start", calls: 1, costUsd: 1 }))).toBeNull();
    expect(sessionOf("t", report("frame", { calls: 1, costUsd: 0.01 }))).toEqual({
      ticketId: "t",
      role: "frame",
      knownUsd: 0.01,
      costUnknown: false,
    });
    expect(sessionOf("t", report("code"))).toMatchObject({ role: "code", knownUsd: 0, costUnknown: true });
    expect(sessionOf("t", report("code", { calls: 1, costUsd: 0.2 }))).toMatchObject({ costUnknown: false });
    expect(sessionOf("t", report("observe", { calls: 3, costUsd: 0.02, unknownCostCalls: 1 }))).toMatchObject(
      {
        knownUsd: 0.02,
        costUnknown: true,
      },
    );
    expect(sessionOf("t", report("verify", { phase: "error", calls: 1, costUsd: 0.3 }))).toMatchObject({
      knownUsd: 0.3,
    });
  });
});
