/**
 * A ticket whose coder stopped on its provider (a 429 the coder CLI reported) was finalized
 * `blocked` by the daemon: the provider gate tripped, but issue 12 asks that "a ticket that tripped
 * it is requeued with a fresh not_before and an untouched retry counter". Cause: the lane ended the
 * run `blocked` (a terminal verdict a requeue would only resume to). Fix (ADR 0052 amendment
 * s16/provfault): the daemon runs the lane with `leaveProviderStopsOpen`, the code node throws
 * CODER_PROVIDER_STOPPED, the classifier maps it, and the provider guard requeues the ticket with
 * its retry counter untouched and `provider_requeues` + 1, bounded by `worker.maxProviderRequeues`
 * (the coder is untrusted: several backends read a rate limit from text a model can print).
 *
 * A real `devflow daemon` (bin/devflow.js: `npm run build` first), real fixture repositories, the
 * claude stub (test/stubs/claude.mjs) on PATH, GET /metrics over loopback HTTP.
 */
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TicketRecord } from "../../src/artifacts/schemas/ticket.js";
import {
  finishedTickets,
  readRecord,
  readResult,
  revisions,
  sandboxPerTest,
  submitChangeTicket,
  waitFor,
  writeWorkerConfig,
} from "../support/daemon-harness.js";
import { startDevflow } from "../support/devflow-process.js";
import { demoCassette, writeCassette } from "../support/lane-harness.js";
import { type ProviderStopCoder, providerStopCoder } from "../support/provider-stop-coder.js";

const box = sandboxPerTest();

function startDaemonWith(coder: ProviderStopCoder) {
  return startDevflow(["daemon", "--replay", writeCassette(demoCassette())], {
    DEVFLOW_HOME: box.root,
    PATH: `${coder.bin}${delimiter}${process.env.PATH ?? ""}`,
    ...coder.env,
  });
}

const requeues = (id: string): TicketRecord[] =>
  revisions<TicketRecord>(box, id, "ticket_record").filter(
    (r) => r.state === "inbox" && (r.provider_requeues ?? 0) > 0,
  );

describe("devflow daemon: a coder stopped by its provider", () => {
  it("is requeued with its retry counter untouched and a fresh not_before, then completes on the same attempt", async () => {
    writeWorkerConfig(box, { healthPort: 0, rateLimitBaseSeconds: 2 });
    const coder = providerStopCoder(1);
    const ticket = await submitChangeTicket(box, "rate-limited-once", "claude");
    const daemon = startDaemonWith(coder);
    try {
      await waitFor("the ticket to end", () => finishedTickets(box) === 1 || daemon.child.exitCode !== null);
      expect(daemon.child.exitCode, daemon.stderr()).toBeNull();

      const [requeued, ...more] = requeues(ticket.id);
      expect(more).toEqual([]);
      expect(requeued).toMatchObject({ status: "queued", retry_count: 0, provider_requeues: 1 });
      expect(requeued?.reason).toMatch(
        /^provider gate rate_limited \(retry counter untouched, provider requeue 1 of 3/,
      );
      // A fresh not_before: the gate's backoff (rateLimitBaseSeconds 2) from the requeue.
      const wait = Date.parse(requeued?.not_before ?? "") - Date.parse(requeued?.updated_at ?? "");
      expect(wait).toBeGreaterThan(1000);
      expect(wait).toBeLessThanOrEqual(2000);

      const result = readResult(box, ticket.id);
      expect(result, result.reason).toMatchObject({
        status: "completed",
        verdict: "completed",
        retry_count: 0,
        attempts: 1,
        resumed: true,
      });
      expect(readRecord(box, ticket.id)).toMatchObject({
        state: "done",
        retry_count: 0,
        provider_requeues: 1,
      });
      expect(coder.runs()).toBe(2);

      const file = join(box.root, "health.json");
      await waitFor("health.json", () => existsSync(file), 60_000);
      const { url } = JSON.parse(readFileSync(file, "utf8")) as { url: string };
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^devflow_gate_trips_total\{state="rate_limited"\} 1$/m);
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exit;
    }
  }, 600_000);

  it("that always says rate limit is finalized blocked after worker.maxProviderRequeues, naming the limit", async () => {
    writeWorkerConfig(box, { healthPort: false, rateLimitBaseSeconds: 0, maxProviderRequeues: 2 });
    const coder = providerStopCoder(Number.POSITIVE_INFINITY);
    const ticket = await submitChangeTicket(box, "always-rate-limited", "claude");
    const daemon = startDaemonWith(coder);
    try {
      await waitFor("the ticket to end", () => finishedTickets(box) === 1 || daemon.child.exitCode !== null);
      expect(daemon.child.exitCode, daemon.stderr()).toBeNull();

      expect(requeues(ticket.id).map((r) => [r.provider_requeues, r.retry_count])).toEqual([
        [1, 0],
        [2, 0],
      ]);
      const result = readResult(box, ticket.id);
      expect(result).toMatchObject({ status: "failed", verdict: "blocked", retry_count: 0 });
      expect(result.reason).toMatch(/^coder claude stopped with rate_limit/);
      expect(result.reason).toContain("worker.maxProviderRequeues 2 reached");
      expect(readRecord(box, ticket.id)).toMatchObject({ state: "failed", provider_requeues: 2 });
      expect(coder.runs()).toBe(3);
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exit;
    }
  }, 600_000);
});
