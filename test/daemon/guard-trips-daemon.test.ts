/**
 * devflow_guard_trips_total was never incremented (issue 12 asks /metrics for "guard trips"): the
 * counter was defined, but nothing told the daemon when a guard of the lane refused a coder, so a
 * daemon whose coders edited the seam test or rewrote the task branch all night showed 0.
 * Fix (ADR 0054 amendment, src/daemon/guard-trips.ts): at a change ticket's end the worker reads
 * the trips its task's artifacts record (iterator_run.json, the seam envelope), keeps them in
 * ticket_result.guard_trips and counts the ones the ticket's previous terminal record did not hold,
 * so a retried ticket that ends again on the same artifacts is not counted twice.
 *
 * A real `devflow daemon` (bin/devflow.js: `npm run build` first), real fixture repositories,
 * hostile `command:` coders, and GET /metrics over loopback HTTP.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  finishedTickets,
  queueFiles,
  readResult,
  revisions,
  sandboxPerTest,
  startDaemon,
  submitChangeTicket,
  waitFor,
  writeWorkerConfig,
} from "../support/daemon-harness.js";
import { startDevflow } from "../support/devflow-process.js";
import { CORRECT_FIX, coderScript } from "../support/lane-harness.js";

const box = sandboxPerTest();

/** Makes the seam test pass by rewriting it (the seam_integrity guard). */
const EDITS_THE_SEAM = `
import { writeFileSync } from "node:fs";
writeFileSync("test/email-trim.test.js", 'import { test } from "node:test";\\ntest("ok", () => {});\\n');
console.log("Fixed! All tests pass now.");
`;

/** Fixes the bug, then detaches HEAD from the task branch (the gate's tamper check). */
const DETACHES_THE_BRANCH = `${CORRECT_FIX}
import { execFileSync } from "node:child_process";
execFileSync("git", ["checkout", "-q", "--detach"]);
`;

const metrics = async (url: string): Promise<string> => (await fetch(`${url}/metrics`)).text();

/** Every `devflow_guard_trips_total{guard="…"}` sample, by guard. */
function guardSamples(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^devflow_guard_trips_total\{guard="([a-z_]+)"\} (\d+)$/gm))
    out[m[1] as string] = Number(m[2]);
  return out;
}

function tally(trips: { guard: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of trips) out[t.guard] = (out[t.guard] ?? 0) + 1;
  return out;
}

describe("devflow daemon: guard trips in /metrics", () => {
  it("devflow_guard_trips_total counts the seam test a coder rewrote and the task branch a coder detached, once, also after a retry", async () => {
    writeWorkerConfig(box, { healthPort: 0 });
    const edits = await submitChangeTicket(box, "edits-seam", coderScript(EDITS_THE_SEAM), {
      maxIterations: 1,
    });
    const detaches = await submitChangeTicket(box, "detaches", coderScript(DETACHES_THE_BRANCH), {
      maxIterations: 1,
    });
    const daemon = startDaemon(box);
    try {
      await waitFor(
        "both tickets to end",
        () => finishedTickets(box) === 2 || daemon.child.exitCode !== null,
      );
      expect(daemon.child.exitCode, daemon.stderr()).toBeNull();
      const file = join(box.root, "health.json");
      await waitFor("health.json", () => existsSync(file), 60_000);
      const { url } = JSON.parse(readFileSync(file, "utf8")) as { url: string };

      const edited = readResult(box, edits.id);
      expect(edited).toMatchObject({ status: "failed", verdict: "exhausted" });
      // Its one attempt rewrote the seam file: seam_integrity refused it (scope leaves the seam's files to it).
      expect(edited.guard_trips).toEqual([{ guard: "seam_integrity", attempt_id: "attempt-001" }]);
      const detached = readResult(box, detaches.id);
      expect(detached).toMatchObject({ status: "failed", verdict: "blocked" });
      expect(detached.reason).toContain("tamper");
      expect(detached.guard_trips).toEqual([{ guard: "tamper", attempt_id: "attempt-001" }]);

      // The counter is exactly what the two terminal records hold: no trip lost, none invented.
      const recorded = tally([...(edited.guard_trips ?? []), ...(detached.guard_trips ?? [])]);
      expect(recorded.seam_integrity).toBe(1);
      expect(recorded.tamper).toBe(1);
      const before = guardSamples(await metrics(url));
      expect(before).toEqual(recorded);

      // Retried: the ticket resumes its task to the same end; its trips were counted already.
      const retry = startDevflow(["retry", edits.id], { DEVFLOW_HOME: box.root });
      expect(await retry.exit, retry.stderr()).toBe(0);
      await waitFor(
        "the retried ticket to end again",
        () =>
          (queueFiles(box, "failed").length === 2 &&
            revisions(box, edits.id, "ticket_result").length === 2) ||
          daemon.child.exitCode !== null,
      );
      expect(readResult(box, edits.id).guard_trips).toEqual(edited.guard_trips);
      expect(guardSamples(await metrics(url))).toEqual(recorded);
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exit;
    }
  }, 600_000);
});
