/**
 * A coder stopped by its provider (auth, rate limit) ended a daemon ticket `blocked` for good
 * (issue 12, "a ticket that tripped [the provider gate] is requeued with a fresh not_before and an
 * untouched retry counter"). Cause: the code node terminated the run `blocked`, so a requeued ticket
 * could only resume to that verdict. Fix (ADR 0052 amendment s16/provfault): with the daemon-only
 * lane option `leaveProviderStopsOpen` the node throws CODER_PROVIDER_STOPPED instead
 * (lane/provider-stop.ts); the checkpoint stays before the code node, so a resume re-runs the same
 * judge attempt. Without the option (`devflow iterate`, chat) the run still ends `blocked` at once.
 *
 * Real lane, real git, the claude stub as the coder (test/stubs/claude.mjs, its structured 429).
 */
import { rmSync } from "node:fs";
import { delimiter, dirname } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isDevflowError } from "../../src/errors/index.js";
import { runLane } from "../support/lane-harness.js";
import { type ProviderStopCoder, providerStopCoder } from "../support/provider-stop-coder.js";

const cleanup: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function onPath(coder: ProviderStopCoder): void {
  cleanup.push(dirname(coder.bin));
  vi.stubEnv("PATH", `${coder.bin}${delimiter}${process.env.PATH ?? ""}`);
  for (const [name, value] of Object.entries(coder.env)) vi.stubEnv(name, value);
}

describe("a coder stopped by its provider", () => {
  it("ends the run blocked at once without the daemon's option (devflow iterate, as before)", async () => {
    const coder = providerStopCoder(1);
    onPath(coder);
    const run = await runLane({ coder: "claude" });
    cleanup.push(dirname(run.repo));
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(/^coder claude stopped with rate_limit: /);
    expect(coder.runs()).toBe(1);
  }, 240_000);

  it("with leaveProviderStopsOpen throws CODER_PROVIDER_STOPPED, leaves no verdict, and a resume completes the same attempt", async () => {
    const coder = providerStopCoder(1);
    onPath(coder);
    const first = await runLane({ coder: "claude", lane: { leaveProviderStopsOpen: true } });
    cleanup.push(dirname(first.repo));
    expect(first.result).toBeNull();
    expect(isDevflowError(first.error, "CODER_PROVIDER_STOPPED")).toBe(true);
    if (!isDevflowError(first.error, "CODER_PROVIDER_STOPPED")) return;
    expect(first.error.details).toMatchObject({ status: "rate_limit", coder: "claude" });
    const open = await first.store.read("iterator_run");
    expect(open?.terminal).toBeNull();

    const resumed = await runLane({
      coder: "claude",
      repo: first.repo,
      resume: true,
      lane: { leaveProviderStopsOpen: true },
    });
    expect(resumed.error).toBeNull();
    expect(resumed.result?.terminal.verdict).toBe("completed");
    // The stopped run spent no judge attempt: the fix is attempt-001's.
    const iterator = await resumed.store.read("iterator_run");
    expect(iterator?.attempts.map((a) => a.attempt_id)).toEqual(["attempt-001"]);
    expect(coder.runs()).toBe(2);
  }, 240_000);
});
